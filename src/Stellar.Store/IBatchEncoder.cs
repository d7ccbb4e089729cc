using Stellar.Store.Engine;

namespace Stellar.Store;

/// <summary>
/// What a <see cref="WriteBatch{TKey,TValue}"/> needs of its collection: a value's key, and a write encoded and
/// checked as the collection's own writes are. Through this and not the collection itself, so that the collection
/// depends on its batches and never the other way.
/// </summary>
/// <remarks>Thread safety: both members may be called from any thread.</remarks>
internal interface IBatchEncoder<TKey, TValue>
    where TKey : notnull
{
    /// <summary>The key the collection's key selector gives <paramref name="value"/>; never null.</summary>
    TKey KeyOf(TValue value);

    /// <summary>
    /// The write of <paramref name="kind"/>, serialized and checked against the size limits; one whose
    /// <paramref name="expiry"/> is unspecified takes the collection's expiry policy.
    /// </summary>
    SingleWrite<TKey, TValue> Encode(WriteKind kind, TKey key, TValue? value, WriteExpiry expiry = default);

    /// <summary>When a record written now expires if it expires <paramref name="expiresAfter"/> from now (UTC ticks).</summary>
    long ExpiryOf(TimeSpan expiresAfter);

    /// <summary>The expiry time <paramref name="expiresAt"/> in UTC ticks, once checked to be in the future.</summary>
    long ExpiryAt(DateTimeOffset expiresAt);
}
