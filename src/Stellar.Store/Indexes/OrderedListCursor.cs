namespace Stellar.Store.Indexes;

/// <summary>
/// A walk over an <see cref="OrderedList{T,TLead}"/> in order or in reverse, without locks beside its writer: leaf by
/// leaf, a few of a leaf's items at a time copied and then checked against the leaf's version, and the walk found
/// again after the last item it gave whenever a check fails.
/// </summary>
/// <remarks>
/// <para>What it gives: every item that was in the list when the walk began and stayed until the walk passed its
/// place, once each and in order; an item added or removed meanwhile may or may not be given.</para>
/// <para>Thread safety: one thread per cursor; any number of cursors walk one list at once.</para>
/// </remarks>
internal struct OrderedListCursor<T, TLead>
    where T : class
{
    private readonly OrderedList<T, TLead> _list;
    private readonly bool _forward;

    /// <summary>Where the walk starts (null: at an end); once an item is given, the walk goes on from that item.</summary>
    private T? _from;
    private bool _after;

    /// <summary>The leaf the walk reads next, at <see cref="_slot"/> and <see cref="_version"/>; null: find it from <see cref="_from"/>.</summary>
    private OrderedListLeaf<T, TLead>? _leaf;
    private int _version;
    private int _slot;

    /// <summary>Whether the first items of <see cref="_leaf"/> may be ones already given (a leaf reached by a link while a split was under way).</summary>
    private bool _skipGiven;
    private bool _ended;
    private OrderedListBuffer<T> _buffer;
    private int _filled;
    private int _next;

    /// <summary>A walk from <paramref name="from"/> (at or after it going up, before it going down; an end when null).</summary>
    internal OrderedListCursor(OrderedList<T, TLead> list, T? from, bool forward)
    {
        _list = list;
        _forward = forward;
        _from = from;
        _after = false;

        // An empty list needs no search (the count is written after every change, before the version that made it is
        // published, so a reader of that version sees it).
        _ended = list.Count == 0;
    }

    /// <summary>The next item of the walk, or false at its end.</summary>
    public bool MoveNext(out T item)
    {
        while (true)
        {
            if (_next < _filled)
            {
                var candidate = _buffer[_next++];
                if (_skipGiven && _from is not null && Given(candidate, _from))
                {
                    continue;
                }

                _skipGiven = false;
                _from = candidate;
                _after = true;
                item = candidate;
                return true;
            }

            if (_ended)
            {
                item = null!;
                return false;
            }

            Fill();
        }
    }

    /// <summary>Whether <paramref name="candidate"/> is not past <paramref name="from"/> in the walk's direction (given already, or before its start).</summary>
    private readonly bool Given(T candidate, T from)
    {
        var order = _list.Compare(candidate, from);
        return _forward ? (_after ? order <= 0 : order < 0) : order >= 0;
    }

    /// <summary>Copies the items of the next leaf the walk reads into the buffer (none when the walk moved on).</summary>
    private void Fill()
    {
        _filled = 0;
        _next = 0;
        if (_leaf is null)
        {
            (_leaf, _version, _slot) = _list.Find(_from, _after, _forward);
        }

        var leaf = _leaf;
        var count = leaf.Count;
        var filled = 0;
        int slot;
        bool more;
        if (_forward)
        {
            for (slot = _slot; slot < count && filled < OrderedListBuffer<T>.Length; slot++)
            {
                _buffer[filled++] = leaf.Items[slot];
            }

            more = slot < count;
        }
        else
        {
            for (slot = Math.Min(_slot, count - 1); slot >= 0 && filled < OrderedListBuffer<T>.Length; slot--)
            {
                _buffer[filled++] = leaf.Items[slot];
            }

            more = slot >= 0;
        }

        if (more)
        {
            // The rest of the leaf next time, at the same version.
            if (leaf.Obsolete || !leaf.Unchanged(_version))
            {
                _leaf = null;
                return;
            }

            _filled = filled;
            _slot = slot;
            return;
        }

        var beyond = _forward ? leaf.Next : leaf.Previous;
        var beyondVersion = beyond?.Stable() ?? 0;
        if (leaf.Obsolete || !leaf.Unchanged(_version))
        {
            // Changed while read: find the leaf again, from the last item given.
            _leaf = null;
            return;
        }

        _filled = filled;
        if (beyond is null)
        {
            _ended = true;
            return;
        }

        _leaf = beyond;
        _version = beyondVersion;
        _slot = _forward ? 0 : int.MaxValue;
        _skipGiven = true;
    }
}
