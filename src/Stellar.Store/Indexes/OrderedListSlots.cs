using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// The slots of an <see cref="OrderedListPage{T,TLead}"/> (its leading keys, its items, a branch's children), held in the
/// page object itself: a search that reaches a page reads its keys without following a reference to an array.
/// </summary>
/// <remarks>Thread safety: as the page that holds it.</remarks>
[InlineArray(OrderedListPage<object, object>.Capacity)]
internal struct OrderedListSlots<T>
{
    private T _slot;
}
