namespace Stellar.Store.Indexes;

/// <summary>
/// A page above the bottom of an <see cref="OrderedList{T,TLead}"/>'s tree: its children, each with the item it
/// started with at <see cref="OrderedListPage{T,TLead}.Items"/> of the same slot. Every item under child <c>i</c> sorts
/// at or after child <c>i</c>'s item and before child <c>i + 1</c>'s (the first child's item is never compared).
/// </summary>
/// <remarks>Thread safety: as <see cref="OrderedListPage{T,TLead}"/>.</remarks>
internal sealed class OrderedListBranch<T, TLead> : OrderedListPage<T, TLead>
    where T : class
{
    private OrderedListSlots<OrderedListPage<T, TLead>> _children;

    /// <summary>A page; with <paramref name="heads"/>, one that keeps the heads of its text keys.</summary>
    public OrderedListBranch(bool heads)
        : base(heads)
    {
    }

    /// <summary>The children, in the page's own memory.</summary>
    public Span<OrderedListPage<T, TLead>> Children => _children;
}
