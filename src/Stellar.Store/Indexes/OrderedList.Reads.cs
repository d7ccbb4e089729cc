namespace Stellar.Store.Indexes;

/// <summary>A reader's search of the list: from the root to a leaf without a lock, reading each page's version before and after (optimistic lock coupling), and starting again when the writer changed a page it read.</summary>
internal sealed partial class OrderedList<T, TLead>
{
    /// <summary>
    /// Any thread: the leaf (with the version it was read at) and the slot a walk starts from: up, the first item at or
    /// after <paramref name="from"/> (after it when <paramref name="after"/>); down, the last item before it. At an end
    /// when <paramref name="from"/> is null. The slot may be past the leaf's items: the walk goes on to its neighbour.
    /// </summary>
    internal (OrderedListLeaf<T, TLead> Leaf, int Version, int Slot) Find(T? from, bool after, bool forward)
    {
        var lead = from is null ? default! : _lead(from);
        (OrderedListLeaf<T, TLead>, int, int) found;
        while (!TryFind(from, lead, after, forward, out found))
        {
        }

        return found;
    }

    /// <summary>Any thread: one search for <see cref="Find"/>; false when a change of the writer overlapped it.</summary>
    private bool TryFind(T? from, TLead lead, bool after, bool forward, out (OrderedListLeaf<T, TLead> Leaf, int Version, int Slot) found)
    {
        found = default;
        var page = Volatile.Read(ref _root);
        var version = page.Stable();
        Interlocked.MemoryBarrier();
        if (!ReferenceEquals(page, Volatile.Read(ref _root)))
        {
            return false;
        }

        while (true)
        {
            try
            {
                var count = page.Count;
                if (page.Obsolete)
                {
                    return false;
                }

                if (page is OrderedListBranch<T, TLead> branch)
                {
                    if (count == 0)
                    {
                        return false;
                    }

                    // The child's version is read while its parent still holds: a split or removal changes the parent
                    // before the child, so a child changed since then fails its own check.
                    var child = branch.Children[from is null ? (forward ? 0 : count - 1) : ChildFor(branch, count, from, lead)];
                    if (child is null)
                    {
                        return false;
                    }

                    var childVersion = child.Stable();
                    if (!page.Unchanged(version))
                    {
                        return false;
                    }

                    page = child;
                    version = childVersion;
                    continue;
                }

                var slot = from is null ? (forward ? 0 : count - 1)
                    : forward ? Bound(page, count, from, lead, after)
                    : Bound(page, count, from, lead, after: false) - 1;
                if (!page.Unchanged(version))
                {
                    return false;
                }

                found = ((OrderedListLeaf<T, TLead>)page, version, slot);
                return true;
            }
            catch (Exception) when (!page.Unchanged(version))
            {
                // A comparer that threw on a half-changed page: the search starts again.
                return false;
            }
        }
    }
}
