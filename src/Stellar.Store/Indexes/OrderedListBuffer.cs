using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// Room for a run of a leaf's items inside an <see cref="OrderedListCursor{T,TLead}"/>, so that a walk copies them,
/// checks the leaf once, and then hands them out without an allocation or a check per item. Sixteen keeps a cursor
/// small (a query makes one, and an index's cursor holds one) while a top 100 checks a leaf a few times only.
/// </summary>
/// <remarks>Thread safety: a value of the cursor that holds it; one thread.</remarks>
[InlineArray(Length)]
internal struct OrderedListBuffer<T>
{
    /// <summary>The items the buffer holds.</summary>
    public const int Length = 16;

    private T _item;
}
