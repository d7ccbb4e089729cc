namespace Stellar.Store.Indexes;

/// <summary>A page at the bottom of an <see cref="OrderedList{T,TLead}"/>'s tree: items of the list, in order.</summary>
/// <remarks>Thread safety: as <see cref="OrderedListPage{T,TLead}"/>.</remarks>
internal sealed class OrderedListLeaf<T, TLead> : OrderedListPage<T, TLead>
    where T : OrderedListNode<T>
{
}
