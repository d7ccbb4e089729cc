using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// What an item of a <see cref="SkipList{T}"/> carries to be in it: its links, forward and backward, one pair per level
/// it stands on. The item is its own node, so that a search step reads one object, not a node and then its item.
/// </summary>
/// <remarks>
/// <para>Level 0, which every node stands on and every walk ends on, has its links in the node itself; only the quarter
/// of nodes that stand higher carry an array for the levels above.</para>
/// <para>Thread safety: the links are set by the list's writer (release writes) and read by any thread (acquire reads).
/// A node is in one list at most, once.</para>
/// </remarks>
/// <typeparam name="T">The items, each its own node.</typeparam>
internal abstract class SkipListNode<T>
    where T : SkipListNode<T>
{
    /// <summary>For levels 1 and up: at <c>2 * (level - 1)</c> the next node, at <c>2 * (level - 1) + 1</c> the previous one.</summary>
    private Link[]? _upper;
    private SkipListNode<T>? _next;

    /// <summary>The node before this one at level 0; the list's head before the first.</summary>
    private SkipListNode<T>? _previous;

    /// <summary>The levels the node stands on: 0 until the list links it.</summary>
    public int Height { get; private set; }

    /// <summary>The item after this one in order, or null.</summary>
    public T? Next => Unsafe.As<T?>(Volatile.Read(ref _next));

    internal SkipListNode<T>? NextAt(int level) => level == 0 ? Volatile.Read(ref _next) : Volatile.Read(ref _upper![2 * (level - 1)].Node);

    /// <summary>The node before this one at <paramref name="level"/>; the list's head before the first.</summary>
    internal SkipListNode<T>? PreviousAt(int level) => level == 0 ? Volatile.Read(ref _previous) : Volatile.Read(ref _upper![(2 * (level - 1)) + 1].Node);

    /// <summary>Writer only, before any reader can reach the node: it will stand on <paramref name="height"/> levels.</summary>
    internal void Stand(int height)
    {
        Height = height;
        _upper = height > 1 ? new Link[2 * (height - 1)] : null;
    }

    /// <summary>Without a release, while no reader can reach the node: its links at <paramref name="level"/>.</summary>
    internal void Init(int level, SkipListNode<T>? next, SkipListNode<T>? previous)
    {
        if (level == 0)
        {
            _next = next;
            _previous = previous;
            return;
        }

        _upper![2 * (level - 1)].Node = next;
        _upper[(2 * (level - 1)) + 1].Node = previous;
    }

    /// <summary>Writer only: makes <paramref name="next"/> the successor at <paramref name="level"/>, visible to readers.</summary>
    internal void LinkNext(int level, SkipListNode<T>? next)
    {
        if (level == 0)
        {
            Volatile.Write(ref _next, next);
        }
        else
        {
            Volatile.Write(ref _upper![2 * (level - 1)].Node, next);
        }
    }

    /// <summary>Writer only: makes <paramref name="previous"/> the predecessor at <paramref name="level"/>, visible to readers.</summary>
    internal void LinkPrevious(int level, SkipListNode<T>? previous)
    {
        if (level == 0)
        {
            Volatile.Write(ref _previous, previous);
        }
        else
        {
            Volatile.Write(ref _upper![(2 * (level - 1)) + 1].Node, previous);
        }
    }

    /// <summary>
    /// A link to a node, in an array: an array of a struct, unlike one of a class that is not sealed, is written and
    /// referred to without the runtime's check of each element's type.
    /// </summary>
    internal struct Link
    {
        public SkipListNode<T>? Node;
    }
}
