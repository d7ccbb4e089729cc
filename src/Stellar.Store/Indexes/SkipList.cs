using System.Diagnostics;

namespace Stellar.Store.Indexes;

/// <summary>
/// A sorted set of distinct items, changed by one writer and read by any number of threads without locks: a skip
/// list whose links the writer sets with release writes and readers follow with acquire reads.
/// </summary>
/// <remarks>
/// <para>Why this shape: an index must be read lock-free beside a writer that keeps changing it, and a skip list
/// changes by relinking a few pointers, never by copying (a copy-on-write tree would copy a path per change, and the
/// writer changes it on every commit). Adding links the new node at the lowest level first, so a reader that finds
/// it at any level finds it whole; removing unlinks it from the top down and leaves its own links as they were, so a
/// reader standing on a removed node still walks on to the items after it. Every level is linked both ways: readers
/// walk down level 0 from the last item as cheaply as up from the first (a backward link is set after the forward
/// ones, and a removed node keeps its own, with the same guarantee for a reader walking down), and the writer
/// removes a node it holds without searching for it, which halves what keeping an index costs a write.</para>
/// <para>What a reader sees: every item added before its walk began and not removed before the walk passed it; it
/// may also see items added or removed meanwhile. The index's entries carry the versions they are visible at, so
/// that a reader keeps only what its snapshot can see.</para>
/// <para>Thread safety: <see cref="Add"/>, <see cref="Load"/> and <see cref="Remove"/> from one thread at a time (the
/// collection's writer); everything else from any thread.</para>
/// </remarks>
/// <typeparam name="T">The items, ordered by the comparer given.</typeparam>
internal sealed class SkipList<T>
{
    private const int MaxLevel = 32;

    private readonly IComparer<T> _comparer;
    private readonly Node _head = new(default!, MaxLevel);

    /// <summary>Writer only: each level's last node before the item being added.</summary>
    private readonly Node[] _update = new Node[MaxLevel];

    /// <summary>Writer only: the state of the level generator (xorshift).</summary>
    private uint _random = 2463534242;
    private int _level = 1;
    private int _count;

    public SkipList(IComparer<T> comparer) => _comparer = comparer;

    /// <summary>The number of items, as of the writer's last change.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>The first node, or null when the set is empty.</summary>
    public Node? First => _head.Next;

    /// <summary>The first node whose item is at or after <paramref name="probe"/>, or null.</summary>
    public Node? FirstAtOrAfter(T probe)
    {
        var node = _head;
        for (var level = MaxLevel - 1; level >= 0; level--)
        {
            while (node.NextAt(level) is { } next && _comparer.Compare(next.Item, probe) < 0)
            {
                node = next;
            }
        }

        return node.Next;
    }

    /// <summary>The last node, or null when the set is empty.</summary>
    public Node? Last()
    {
        var node = _head;
        for (var level = MaxLevel - 1; level >= 0; level--)
        {
            while (node.NextAt(level) is { } next)
            {
                node = next;
            }
        }

        return Outside(node);
    }

    /// <summary>The node before <paramref name="node"/> in order, or null when it is the first.</summary>
    public Node? Before(Node node) => Outside(node.PreviousAt(0));

    /// <summary>
    /// Writer only, on an empty set that no reader reads yet: adds <paramref name="sorted"/>, distinct and in order, in
    /// one pass (no search per item), and returns their nodes in the same order. Readers see the items once the writer
    /// publishes the set by other means.
    /// </summary>
    public Node[] Load(IReadOnlyList<T> sorted)
    {
        Debug.Assert(_count == 0, "a load fills an empty set");
        var nodes = new Node[sorted.Count];
        var last = new Node[MaxLevel];
        Array.Fill(last, _head);
        for (var i = 0; i < sorted.Count; i++)
        {
            Debug.Assert(i == 0 || _comparer.Compare(sorted[i - 1], sorted[i]) < 0, "loaded items are distinct and in order");
            var node = nodes[i] = new Node(sorted[i], RandomLevel());
            for (var level = 0; level < node.Height; level++)
            {
                node.Init(level, next: null, previous: last[level]);
                last[level].Init(level, node, last[level].PreviousAt(level));
                last[level] = node;
            }

            _level = Math.Max(_level, node.Height);
        }

        Volatile.Write(ref _count, sorted.Count);
        return nodes;
    }

    /// <summary>Writer only: adds <paramref name="item"/>, which the set must not hold, and returns its node.</summary>
    public Node Add(T item)
    {
        var update = _update;
        var node = _head;
        for (var level = _level - 1; level >= 0; level--)
        {
            while (node.NextAt(level) is { } next && _comparer.Compare(next.Item, item) < 0)
            {
                node = next;
            }

            update[level] = node;
        }

        Debug.Assert(node.NextAt(0) is not { } same || _comparer.Compare(same.Item, item) != 0, "an item is added once");
        var height = RandomLevel();
        for (var level = _level; level < height; level++)
        {
            update[level] = _head;
        }

        var added = new Node(item, height);
        for (var level = 0; level < height; level++)
        {
            added.Init(level, update[level].NextAt(level), update[level]);
        }

        // Lowest level first: a reader that meets the node at any level can walk on from it at level 0. The backward
        // links follow.
        for (var level = 0; level < height; level++)
        {
            update[level].LinkNext(level, added);
        }

        for (var level = 0; level < height; level++)
        {
            added.NextAt(level)?.LinkPrevious(level, added);
        }

        if (height > _level)
        {
            _level = height;
        }

        Volatile.Write(ref _count, _count + 1);
        return added;
    }

    /// <summary>Writer only: removes <paramref name="node"/>, which <see cref="Add"/> or <see cref="Load"/> returned, without a search.</summary>
    public void Remove(Node node)
    {
        // Top down, and the removed node keeps its own links: a reader on it still reaches what follows and precedes it.
        for (var level = node.Height - 1; level >= 0; level--)
        {
            var previous = node.PreviousAt(level)!;
            var next = node.NextAt(level);
            Debug.Assert(ReferenceEquals(previous.NextAt(level), node), "a node is removed once, from where it is linked");
            previous.LinkNext(level, next);
            next?.LinkPrevious(level, previous);
        }

        Volatile.Write(ref _count, _count - 1);
    }

    /// <summary><paramref name="node"/>, or null for the head (which is outside the items).</summary>
    private Node? Outside(Node? node) => ReferenceEquals(node, _head) ? null : node;

    /// <summary>A level for a new node: 1, then each further level with probability 1/4.</summary>
    private int RandomLevel()
    {
        var height = 1;
        while (height < MaxLevel)
        {
            var x = _random;
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            _random = x;
            if ((x & 3) != 0)
            {
                break;
            }

            height++;
        }

        return height;
    }

    /// <summary>One item and its links, forward and backward, one pair per level it stands on.</summary>
    /// <remarks>
    /// Level 0, which every node stands on and every walk ends on, has its links in the node itself; only the quarter of
    /// nodes that stand higher carry an array for the levels above, so a step at level 0 touches one object.
    /// </remarks>
    public sealed class Node
    {
        /// <summary>For levels 1 and up: at <c>2 * (level - 1)</c> the next node, at <c>2 * (level - 1) + 1</c> the previous one.</summary>
        private readonly Node?[]? _upper;
        private Node? _next;

        /// <summary>The node before this one at level 0; the head before the first.</summary>
        private Node? _previous;

        public Node(T item, int height)
        {
            Item = item;
            Height = height;
            _upper = height > 1 ? new Node?[2 * (height - 1)] : null;
        }

        public T Item { get; }

        /// <summary>The levels the node stands on.</summary>
        public int Height { get; }

        /// <summary>The node after this one at level 0, or null: the next item in order.</summary>
        public Node? Next => Volatile.Read(ref _next);

        public Node? NextAt(int level) => level == 0 ? Volatile.Read(ref _next) : Volatile.Read(ref _upper![2 * (level - 1)]);

        /// <summary>The node before this one at <paramref name="level"/>; the head before the first.</summary>
        public Node? PreviousAt(int level) => level == 0 ? Volatile.Read(ref _previous) : Volatile.Read(ref _upper![(2 * (level - 1)) + 1]);

        /// <summary>Without a release, while no reader can reach the node: its links at <paramref name="level"/>.</summary>
        public void Init(int level, Node? next, Node? previous)
        {
            if (level == 0)
            {
                _next = next;
                _previous = previous;
                return;
            }

            _upper![2 * (level - 1)] = next;
            _upper[(2 * (level - 1)) + 1] = previous;
        }

        /// <summary>Writer only: makes <paramref name="next"/> the successor at <paramref name="level"/>, visible to readers.</summary>
        public void LinkNext(int level, Node? next)
        {
            if (level == 0)
            {
                Volatile.Write(ref _next, next);
            }
            else
            {
                Volatile.Write(ref _upper![2 * (level - 1)], next);
            }
        }

        /// <summary>Writer only: makes <paramref name="previous"/> the predecessor at <paramref name="level"/>, visible to readers.</summary>
        public void LinkPrevious(int level, Node? previous)
        {
            if (level == 0)
            {
                Volatile.Write(ref _previous, previous);
            }
            else
            {
                Volatile.Write(ref _upper![(2 * (level - 1)) + 1], previous);
            }
        }
    }
}
