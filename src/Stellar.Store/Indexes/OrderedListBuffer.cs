using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// Room for one page's items inside an <see cref="OrderedListCursor{T,TLead}"/>, so that a walk copies a leaf's items,
/// checks the leaf once, and then hands them out without an allocation or a check per item.
/// </summary>
/// <remarks>Thread safety: a value of the cursor that holds it; one thread.</remarks>
[InlineArray(OrderedListPage<object, object>.Capacity)]
internal struct OrderedListBuffer<T>
{
    private T _item;
}
