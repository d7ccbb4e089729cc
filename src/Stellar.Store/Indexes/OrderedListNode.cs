using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// What an item of an <see cref="OrderedList{T,TLead}"/> carries to be in it: its links to the items before and after
/// it in order. The item is its own node, so that a walk reads one object per item.
/// </summary>
/// <remarks>
/// Thread safety: the links are set by the list's writer (release writes) and read by any thread (acquire reads). A
/// node is in one list at most, once; a removed node keeps its links, so that a reader standing on it walks on.
/// </remarks>
/// <typeparam name="T">The items, each its own node.</typeparam>
internal abstract class OrderedListNode<T>
    where T : OrderedListNode<T>
{
    private T? _next;
    private T? _previous;

    /// <summary>The item after this one in order, or null.</summary>
    public T? Next => Volatile.Read(ref _next);

    /// <summary>The item before this one in order, or null.</summary>
    public T? Previous => Volatile.Read(ref _previous);

    /// <summary>Writer only, before any reader can reach the node: its links.</summary>
    internal void Init(T? next, T? previous)
    {
        _next = next;
        _previous = previous;
    }

    /// <summary>Writer only: makes <paramref name="next"/> the successor, visible to readers.</summary>
    internal void LinkNext(T? next) => Volatile.Write(ref _next, next);

    /// <summary>Writer only: makes <paramref name="previous"/> the predecessor, visible to readers.</summary>
    internal void LinkPrevious(T? previous) => Volatile.Write(ref _previous, previous);

    /// <summary>This node as the item it is.</summary>
    internal T Self => Unsafe.As<T>(this);
}
