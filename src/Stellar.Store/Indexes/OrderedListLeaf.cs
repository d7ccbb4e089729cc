namespace Stellar.Store.Indexes;

/// <summary>
/// A page at the bottom of an <see cref="OrderedList{T,TLead}"/>'s tree: items of the list, in order, and the leaves
/// before and after it, which a walk follows.
/// </summary>
/// <remarks>Thread safety: as <see cref="OrderedListPage{T,TLead}"/>; the writer changes the links within a change of the page.</remarks>
internal sealed class OrderedListLeaf<T, TLead> : OrderedListPage<T, TLead>
    where T : class
{
    private OrderedListLeaf<T, TLead>? _next;
    private OrderedListLeaf<T, TLead>? _previous;

    /// <summary>A page; with <paramref name="heads"/>, one that keeps the heads of its text keys.</summary>
    public OrderedListLeaf(bool heads)
        : base(heads)
    {
    }

    /// <summary>The leaf whose items follow this one's, or null.</summary>
    public OrderedListLeaf<T, TLead>? Next
    {
        get => Volatile.Read(ref _next);
        set => Volatile.Write(ref _next, value);
    }

    /// <summary>The leaf whose items precede this one's, or null.</summary>
    public OrderedListLeaf<T, TLead>? Previous
    {
        get => Volatile.Read(ref _previous);
        set => Volatile.Write(ref _previous, value);
    }
}
