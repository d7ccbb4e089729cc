using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// A sorted set of distinct items, changed by one writer and read by any number of threads without locks: a B+ tree of
/// pages of at most <see cref="OrderedListPage{T,TLead}.Capacity"/> items, whose leaves are linked both ways and which
/// readers read optimistically (see <see cref="OrderedListPage{T,TLead}"/>).
/// </summary>
/// <remarks>
/// <para>Why this shape: an index's entries must be read lock-free beside a writer that changes them on every commit.
/// A skip list did that by relinking a few nodes per change, but its search read some thirty items scattered over the
/// heap, each a cache miss, and every item it added was linked from older items, which made the collector scan them at
/// every young collection. A page keeps each item's leading key (<typeparamref name="TLead"/>) beside it in the page's
/// own memory, the pages near the root stay in the cache, and an item is referred to by its page alone. Text keys are
/// references to strings elsewhere on the heap, and keys like player names share long starts: their pages also keep a
/// number of each key's four characters after the start the page's keys share (<see cref="OrderedListPage{T,TLead}.Heads"/>),
/// so that a search reads a string only when two heads tie.</para>
/// <para>Each page change keeps every item findable at every moment: a full page is copied half into a new page, the
/// new page is put in its parent (and linked to its neighbours) before the old page is cut to its first half; a leaf
/// whose last item goes is taken out of its parent and unlinked before readers are told to leave it. A reader reads a
/// child's version before it checks that the parent did not change (optimistic lock coupling), and a walk
/// (<see cref="OrderedListCursor{T,TLead}"/>) checks each leaf it copied, finding its place again after the last item
/// it gave when a check fails.</para>
/// <para>What a reader sees: every item added before its walk began and not removed before the walk passed it; it
/// may also see items added or removed meanwhile. The index's entries carry the versions they are visible at, so that
/// a reader keeps only what its snapshot can see.</para>
/// <para>Thread safety: <see cref="Add"/>, <see cref="Load"/> and <see cref="Remove"/> from one thread at a time (the
/// collection's writer); everything else from any thread.</para>
/// </remarks>
/// <typeparam name="T">The items, ordered by the comparer given.</typeparam>
/// <typeparam name="TLead">
/// The part of an item the order compares first (an index entry's index key), kept in the pages: items whose leading
/// keys differ are ordered by them, and only a tie reads the items.
/// </typeparam>
internal sealed partial class OrderedList<T, TLead>
    where T : class
{
    private const int Capacity = OrderedListPage<T, TLead>.Capacity;

    /// <summary>How full <see cref="Load"/> fills a page: room for a quarter more before the first split.</summary>
    private const int LoadFill = Capacity * 3 / 4;

    private readonly IComparer<T> _order;
    private readonly Func<T, TLead> _lead;
    private readonly IComparer<TLead> _leadOrder;

    /// <summary>Whether the leading keys are text in ordinal order, whose pages keep their heads (<see cref="OrderedListPage{T,TLead}.Heads"/>).</summary>
    private readonly bool _heads;

    /// <summary>Writer only: the branches of the last descent, root first, and the child taken in each.</summary>
    private OrderedListBranch<T, TLead>[] _path = new OrderedListBranch<T, TLead>[8];
    private int[] _pathSlots = new int[8];

    private OrderedListPage<T, TLead> _root;
    private int _count;

    /// <summary>A set ordered by <paramref name="order"/>, which orders items by <paramref name="lead"/> first, as <paramref name="leadOrder"/> does.</summary>
    public OrderedList(IComparer<T> order, Func<T, TLead> lead, IComparer<TLead> leadOrder)
    {
        _order = order;
        _lead = lead;
        _leadOrder = leadOrder;
        _heads = typeof(TLead) == typeof(string) && ReferenceEquals(leadOrder, StringComparer.Ordinal);
        _root = new OrderedListLeaf<T, TLead>(_heads);
    }

    /// <summary>The number of items, as of the writer's last change.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>A walk up from the first item at or after <paramref name="from"/> (from the first of all when null).</summary>
    public OrderedListCursor<T, TLead> Ascending(T? from) => new(this, from, forward: true);

    /// <summary>A walk down from the last item before <paramref name="before"/> (from the last of all when null).</summary>
    public OrderedListCursor<T, TLead> Descending(T? before) => new(this, before, forward: false);

    /// <summary>The order of two items.</summary>
    internal int Compare(T x, T y) => _order.Compare(x, y);

    /// <summary>
    /// Writer only, on an empty set that no reader reads yet: adds <paramref name="sorted"/>, distinct, in order and in
    /// no list, in one pass (no search per item). Readers see the items once the writer publishes the set by other means.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void Load(IReadOnlyList<T> sorted)
    {
        Debug.Assert(_count == 0, "a load fills an empty set");
        var count = sorted.Count;
        var level = new List<OrderedListPage<T, TLead>>();
        for (var start = 0; start < count; start += LoadFill)
        {
            var leaf = new OrderedListLeaf<T, TLead>(_heads);
            var filled = Math.Min(LoadFill, count - start);
            for (var slot = 0; slot < filled; slot++)
            {
                Debug.Assert(start + slot == 0 || _order.Compare(sorted[start + slot - 1], sorted[start + slot]) < 0, "loaded items are distinct and in order");
                leaf.Items[slot] = sorted[start + slot];
                leaf.Leads[slot] = _lead(sorted[start + slot]);
            }

            leaf.Count = filled;
            FillHeads(leaf);
            if (level.Count > 0)
            {
                var before = (OrderedListLeaf<T, TLead>)level[^1];
                before.Next = leaf;
                leaf.Previous = before;
            }

            level.Add(leaf);
        }

        while (level.Count > 1)
        {
            var above = new List<OrderedListPage<T, TLead>>();
            for (var start = 0; start < level.Count; start += LoadFill)
            {
                var branch = new OrderedListBranch<T, TLead>(_heads);
                var filled = Math.Min(LoadFill, level.Count - start);
                for (var slot = 0; slot < filled; slot++)
                {
                    Place(branch, slot, level[start + slot]);
                }

                branch.Count = filled;
                FillHeads(branch);
                above.Add(branch);
            }

            level = above;
        }

        Volatile.Write(ref _root, level.Count == 1 ? level[0] : new OrderedListLeaf<T, TLead>(_heads));
        Volatile.Write(ref _count, count);
    }

    /// <summary>Writer only: adds <paramref name="item"/>, which is in no list and equal to no item of this one, and returns it.</summary>
    public T Add(T item)
    {
        var lead = _lead(item);
        while (true)
        {
            var depth = Descend(item, lead, out var leaf);
            var count = leaf.Count;
            if (count == Capacity)
            {
                // Split, then search again: the item may belong to either half.
                Split(leaf, depth);
                continue;
            }

            var slot = Bound(leaf, count, item, lead, after: false);
            Debug.Assert(slot == count || _order.Compare(leaf.Items[slot], item) != 0, "an item is added once");
            leaf.BeginWrite();
            leaf.Leads.Slice(slot, count - slot).CopyTo(leaf.Leads.Slice(slot + 1));
            leaf.Items.Slice(slot, count - slot).CopyTo(leaf.Items.Slice(slot + 1));
            leaf.Leads[slot] = lead;
            leaf.Items[slot] = item;
            leaf.Count = count + 1;
            if (leaf.Heads is { } heads)
            {
                heads.AsSpan(slot, count - slot).CopyTo(heads.AsSpan(slot + 1));
                KeepHead(leaf, slot);
            }

            leaf.EndWrite();
            Volatile.Write(ref _count, _count + 1);
            return item;
        }
    }

    /// <summary>Writer only: removes <paramref name="item"/>, which <see cref="Add"/> or <see cref="Load"/> put in this set.</summary>
    public void Remove(T item)
    {
        var lead = _lead(item);
        var depth = Descend(item, lead, out var leaf);
        var count = leaf.Count;
        var slot = Bound(leaf, count, item, lead, after: false);
        Debug.Assert(slot < count && ReferenceEquals(leaf.Items[slot], item), "a removed item is in the set, where its order puts it");

        if (count == 1 && depth > 0)
        {
            // Out of the tree, then out of the walk, then readers still in it are told to leave.
            TakeOut(depth);
            if (leaf.Previous is { } previous)
            {
                previous.BeginWrite();
                previous.Next = leaf.Next;
                previous.EndWrite();
            }

            if (leaf.Next is { } next)
            {
                next.BeginWrite();
                next.Previous = leaf.Previous;
                next.EndWrite();
            }

            leaf.Retire();
        }
        else
        {
            leaf.BeginWrite();
            leaf.Leads.Slice(slot + 1, count - slot - 1).CopyTo(leaf.Leads.Slice(slot));
            leaf.Items.Slice(slot + 1, count - slot - 1).CopyTo(leaf.Items.Slice(slot));
            leaf.Heads?.AsSpan(slot + 1, count - slot - 1).CopyTo(leaf.Heads.AsSpan(slot));
            leaf.Leads[count - 1] = default!;
            leaf.Items[count - 1] = null!;
            leaf.Count = count - 1;
            leaf.EndWrite();
        }

        Volatile.Write(ref _count, _count - 1);
    }

    /// <summary>Puts <paramref name="child"/> at <paramref name="slot"/> of <paramref name="branch"/>, under the item it starts with.</summary>
    private static void Place(OrderedListBranch<T, TLead> branch, int slot, OrderedListPage<T, TLead> child)
    {
        branch.Leads[slot] = child.Leads[0];
        branch.Items[slot] = child.Items[0];
        branch.Children[slot] = child;
    }

    /// <summary>Writer only: the leaf where <paramref name="probe"/> is or goes, with the branches above it in <see cref="_path"/>; returns their number.</summary>
    private int Descend(T probe, TLead lead, out OrderedListLeaf<T, TLead> leaf)
    {
        var page = _root;
        var depth = 0;
        while (page is OrderedListBranch<T, TLead> branch)
        {
            if (depth == _path.Length)
            {
                Array.Resize(ref _path, depth * 2);
                Array.Resize(ref _pathSlots, depth * 2);
            }

            var slot = ChildFor(branch, branch.Count, probe, lead);
            _path[depth] = branch;
            _pathSlots[depth] = slot;
            depth++;
            page = branch.Children[slot];
        }

        leaf = (OrderedListLeaf<T, TLead>)page;
        return depth;
    }

    /// <summary>
    /// Writer only: splits the full <paramref name="page"/> (at <paramref name="depth"/> below the root, on the last
    /// descent's path), or its parent when that is full too (the caller then descends again and splits the page).
    /// </summary>
    private void Split(OrderedListPage<T, TLead> page, int depth)
    {
        if (depth > 0 && _path[depth - 1].Count == Capacity)
        {
            Split(_path[depth - 1], depth - 1);
            return;
        }

        const int Half = Capacity / 2;
        var branch = page as OrderedListBranch<T, TLead>;
        OrderedListPage<T, TLead> right = branch is null ? new OrderedListLeaf<T, TLead>(_heads) : new OrderedListBranch<T, TLead>(_heads);
        page.Leads.Slice(Half, Capacity - Half).CopyTo(right.Leads.Slice(0));
        page.Items.Slice(Half, Capacity - Half).CopyTo(right.Items.Slice(0));
        if (branch is not null)
        {
            branch.Children.Slice(Half, Capacity - Half).CopyTo(((OrderedListBranch<T, TLead>)right).Children.Slice(0));
        }

        right.Count = Capacity - Half;
        FillHeads(right);

        var leaf = page as OrderedListLeaf<T, TLead>;
        if (leaf is not null)
        {
            var newLeaf = (OrderedListLeaf<T, TLead>)right;
            newLeaf.Previous = leaf;
            newLeaf.Next = leaf.Next;
        }

        // The new page joins the tree while the old one still holds every item: a search finds each item either way.
        if (depth == 0)
        {
            var root = new OrderedListBranch<T, TLead>(_heads);
            Place(root, 0, page);
            Place(root, 1, right);
            root.Count = 2;
            FillHeads(root);
            Volatile.Write(ref _root, root);
        }
        else
        {
            var parent = _path[depth - 1];
            var slot = _pathSlots[depth - 1] + 1;
            var count = parent.Count;
            parent.BeginWrite();
            parent.Leads.Slice(slot, count - slot).CopyTo(parent.Leads.Slice(slot + 1));
            parent.Items.Slice(slot, count - slot).CopyTo(parent.Items.Slice(slot + 1));
            parent.Children.Slice(slot, count - slot).CopyTo(parent.Children.Slice(slot + 1));
            Place(parent, slot, right);
            parent.Count = count + 1;
            if (parent.Heads is { } heads)
            {
                heads.AsSpan(slot, count - slot).CopyTo(heads.AsSpan(slot + 1));
                KeepHead(parent, slot);
            }

            parent.EndWrite();
        }

        // A walk down from the leaf after reaches the new leaf, whose items the old one still holds, before the cut.
        if (leaf?.Next is { } after)
        {
            after.BeginWrite();
            after.Previous = (OrderedListLeaf<T, TLead>)right;
            after.EndWrite();
        }

        page.BeginWrite();
        page.Count = Half;
        if (leaf is not null)
        {
            leaf.Next = (OrderedListLeaf<T, TLead>)right;
        }

        page.Leads.Slice(Half, Capacity - Half).Clear();
        page.Items.Slice(Half, Capacity - Half).Clear();
        if (branch is not null)
        {
            branch.Children.Slice(Half, Capacity - Half).Clear();
        }

        FillHeads(page);
        page.EndWrite();
    }

    /// <summary>
    /// Writer only: takes the page at <paramref name="depth"/> on the last descent's path out of its parent, with any
    /// branch that leaves empty (which readers are told to leave); the page itself is the caller's to retire.
    /// </summary>
    private void TakeOut(int depth)
    {
        var parent = _path[depth - 1];
        var count = parent.Count;
        if (count == 1)
        {
            if (depth == 1)
            {
                Volatile.Write(ref _root, new OrderedListLeaf<T, TLead>(_heads));
            }
            else
            {
                TakeOut(depth - 1);
            }

            parent.Retire();
            return;
        }

        var slot = _pathSlots[depth - 1];
        parent.BeginWrite();
        parent.Leads.Slice(slot + 1, count - slot - 1).CopyTo(parent.Leads.Slice(slot));
        parent.Items.Slice(slot + 1, count - slot - 1).CopyTo(parent.Items.Slice(slot));
        parent.Children.Slice(slot + 1, count - slot - 1).CopyTo(parent.Children.Slice(slot));
        parent.Heads?.AsSpan(slot + 1, count - slot - 1).CopyTo(parent.Heads.AsSpan(slot));
        parent.Leads[count - 1] = default!;
        parent.Items[count - 1] = null!;
        parent.Children[count - 1] = null!;
        parent.Count = count - 1;
        parent.EndWrite();
    }

    /// <summary>
    /// The first slot of the first <paramref name="count"/> of <paramref name="page"/> whose item sorts at or after
    /// <paramref name="probe"/> (after it when <paramref name="after"/>), or <paramref name="count"/>.
    /// </summary>
    private int Bound(OrderedListPage<T, TLead> page, int count, T probe, TLead lead, bool after)
    {
        var low = 0;
        var high = count;
        ulong head = 0;
        if (page.Heads is not null && low < high)
        {
            var side = Side(page, low, lead, out head);
            if (side != 0)
            {
                return side < 0 ? low : high;
            }
        }

        while (low < high)
        {
            var middle = low + ((high - low) >> 1);
            var order = Compare(page, middle, probe, lead, head);
            if (order < 0 || (after && order == 0))
            {
                low = middle + 1;
            }
            else
            {
                high = middle;
            }
        }

        return low;
    }

    /// <summary>The child of <paramref name="branch"/> (of its first <paramref name="count"/>) whose items <paramref name="probe"/> sorts among: the last that starts at or before it.</summary>
    private int ChildFor(OrderedListBranch<T, TLead> branch, int count, T probe, TLead lead)
    {
        var low = 1;
        var high = count;
        ulong head = 0;
        if (branch.Heads is not null && low < high)
        {
            var side = Side(branch, low, lead, out head);
            if (side != 0)
            {
                return side < 0 ? 0 : high - 1;
            }
        }

        while (low < high)
        {
            var middle = low + ((high - low) >> 1);
            if (Compare(branch, middle, probe, lead, head) <= 0)
            {
                low = middle + 1;
            }
            else
            {
                high = middle;
            }
        }

        return low - 1;
    }

    /// <summary>
    /// Orders the item at <paramref name="slot"/> of <paramref name="page"/> against <paramref name="probe"/>, by the leading
    /// keys first; in a page that keeps heads, by their heads first (<paramref name="head"/> is the probe's, see <see cref="Side"/>).
    /// </summary>
    private int Compare(OrderedListPage<T, TLead> page, int slot, T probe, TLead lead, ulong head)
    {
        if (page.Heads is { } heads && heads[slot] != head)
        {
            return heads[slot] < head ? -1 : 1;
        }

        var byLead = _leadOrder.Compare(page.Leads[slot], lead);
        if (byLead != 0)
        {
            return byLead;
        }

        // Null only in a page a reader read while the writer changed it; its answer is thrown away.
        return page.Items[slot] is { } item ? _order.Compare(item, probe) : 1;
    }
}
