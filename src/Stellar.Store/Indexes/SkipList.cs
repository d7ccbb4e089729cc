using System.Diagnostics;
using System.Runtime.CompilerServices;

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
/// <typeparam name="T">The items, ordered by the comparer given, each its own node (<see cref="SkipListNode{T}"/>).</typeparam>
internal sealed class SkipList<T>
    where T : SkipListNode<T>
{
    private const int MaxLevel = 32;

    private readonly IComparer<T> _comparer;
    private readonly Head _head = new();

    /// <summary>Writer only: each level's last node before the item being added.</summary>
    private readonly SkipListNode<T>.Link[] _update = new SkipListNode<T>.Link[MaxLevel];

    /// <summary>Writer only: the state of the level generator (xorshift).</summary>
    private uint _random = 2463534242;
    private int _level = 1;
    private int _count;

    public SkipList(IComparer<T> comparer) => _comparer = comparer;

    /// <summary>The number of items, as of the writer's last change.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>The first item, or null when the set is empty.</summary>
    public T? First => _head.Next;

    /// <summary>The first item at or after <paramref name="probe"/>, or null. The probe itself need not be in a list.</summary>
    public T? FirstAtOrAfter(T probe)
    {
        SkipListNode<T> node = _head;
        for (var level = MaxLevel - 1; level >= 0; level--)
        {
            while (node.NextAt(level) is { } next && _comparer.Compare(Unsafe.As<T>(next), probe) < 0)
            {
                node = next;
            }
        }

        return node.Next;
    }

    /// <summary>The last item, or null when the set is empty.</summary>
    public T? Last()
    {
        SkipListNode<T> node = _head;
        for (var level = MaxLevel - 1; level >= 0; level--)
        {
            while (node.NextAt(level) is { } next)
            {
                node = next;
            }
        }

        return Outside(node);
    }

    /// <summary>The item before <paramref name="node"/> in order, or null when it is the first.</summary>
    public T? Before(T node) => Outside(node.PreviousAt(0));

    /// <summary>
    /// Writer only, on an empty set that no reader reads yet: adds <paramref name="sorted"/>, distinct, in order and in
    /// no list, in one pass (no search per item). Readers see the items once the writer publishes the set by other means.
    /// </summary>
    public void Load(IReadOnlyList<T> sorted)
    {
        Debug.Assert(_count == 0, "a load fills an empty set");
        var last = new SkipListNode<T>.Link[MaxLevel];
        Array.Fill(last, new SkipListNode<T>.Link { Node = _head });
        for (var i = 0; i < sorted.Count; i++)
        {
            Debug.Assert(i == 0 || _comparer.Compare(sorted[i - 1], sorted[i]) < 0, "loaded items are distinct and in order");
            var node = sorted[i];
            Debug.Assert(node.Height == 0, "an item is in one list at most, once");
            node.Stand(RandomLevel());
            for (var level = 0; level < node.Height; level++)
            {
                var before = last[level].Node!;
                node.Init(level, next: null, previous: before);
                before.Init(level, node, before.PreviousAt(level));
                last[level].Node = node;
            }

            _level = Math.Max(_level, node.Height);
        }

        Volatile.Write(ref _count, sorted.Count);
    }

    /// <summary>Writer only: adds <paramref name="item"/>, which is in no list and equal to no item of this one, and returns it.</summary>
    public T Add(T item)
    {
        Debug.Assert(item.Height == 0, "an item is in one list at most, once");
        var update = _update;
        SkipListNode<T> node = _head;
        for (var level = _level - 1; level >= 0; level--)
        {
            while (node.NextAt(level) is { } next && _comparer.Compare(Unsafe.As<T>(next), item) < 0)
            {
                node = next;
            }

            update[level].Node = node;
        }

        Debug.Assert(node.Next is not { } same || _comparer.Compare(same, item) != 0, "an item is added once");
        var height = RandomLevel();
        for (var level = _level; level < height; level++)
        {
            update[level].Node = _head;
        }

        var added = item;
        added.Stand(height);
        for (var level = 0; level < height; level++)
        {
            added.Init(level, update[level].Node!.NextAt(level), update[level].Node);
        }

        // Lowest level first: a reader that meets the node at any level can walk on from it at level 0. The backward
        // links follow.
        for (var level = 0; level < height; level++)
        {
            update[level].Node!.LinkNext(level, added);
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
        return item;
    }

    /// <summary>Writer only: removes <paramref name="node"/>, which <see cref="Add"/> or <see cref="Load"/> linked, without a search.</summary>
    public void Remove(T node)
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

    /// <summary><paramref name="node"/> as an item, or null for the head (which is outside the items).</summary>
    private T? Outside(SkipListNode<T>? node) => ReferenceEquals(node, _head) ? null : Unsafe.As<T?>(node);

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

    /// <summary>The head: stands on every level, before every item, and is never an item itself.</summary>
    private sealed class Head : SkipListNode<T>
    {
        public Head() => Stand(MaxLevel);
    }
}
