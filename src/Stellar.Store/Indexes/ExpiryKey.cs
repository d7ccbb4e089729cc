namespace Stellar.Store.Indexes;

/// <summary>
/// An entry's key in the <see cref="ExpiryIndex{TKey,TValue}"/>: when the record expires (UTC ticks), and the order the
/// index made the entry in, which tells apart the entries of records that expire at the same time. The expiry index
/// cannot order them by their primary keys, which need have no order.
/// </summary>
/// <remarks>Thread safety: an immutable value.</remarks>
internal readonly record struct ExpiryKey(long At, long Sequence) : IComparable<ExpiryKey>
{
    public int CompareTo(ExpiryKey other)
    {
        var byAt = At.CompareTo(other.At);
        return byAt != 0 ? byAt : Sequence.CompareTo(other.Sequence);
    }
}
