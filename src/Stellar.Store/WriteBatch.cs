using System.Diagnostics;
using Stellar.Store.Engine;

namespace Stellar.Store;

/// <summary>
/// The writes of one atomic <see cref="Collection{TKey,TValue}.WriteAsync"/>: they are checked in order against
/// the collection as the earlier ones leave it, stored in one block, and become visible at once, or, if any is
/// rejected, none is stored.
/// </summary>
/// <remarks>Not thread-safe: fill it on the thread that called <c>WriteAsync</c>, inside the callback.</remarks>
public sealed class WriteBatch<TKey, TValue>
    where TKey : notnull
{
    private readonly IBatchEncoder<TKey, TValue> _collection;

    internal WriteBatch(IBatchEncoder<TKey, TValue> collection) => _collection = collection;

    internal List<SingleWrite<TKey, TValue>> Writes { get; } = new();

    /// <summary>Adds an insert: the whole batch is rejected with <see cref="DuplicateKeyException"/> if the key exists.</summary>
    public WriteBatch<TKey, TValue> Insert(TValue value) => Add(WriteKind.Insert, value);

    /// <summary>Adds an update: the whole batch is rejected with <see cref="KeyNotFoundException"/> if the key is missing.</summary>
    public WriteBatch<TKey, TValue> Update(TValue value) => Add(WriteKind.Update, value);

    /// <summary>Adds an insert-or-replace.</summary>
    public WriteBatch<TKey, TValue> Upsert(TValue value) => Add(WriteKind.Upsert, value);

    /// <summary>
    /// Adds an insert of a record that expires <paramref name="expiresAfter"/> from now (by the store's
    /// <see cref="StoreOptions.Clock"/>): see <see cref="Collection{TKey,TValue}.InsertAsync(TValue, TimeSpan, CancellationToken)"/>.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="expiresAfter"/> is not positive, or ends after the last representable time.</exception>
    public WriteBatch<TKey, TValue> Insert(TValue value, TimeSpan expiresAfter) => Add(WriteKind.Insert, value, WriteExpiry.At(_collection.ExpiryOf(expiresAfter)));

    /// <summary>
    /// Adds an insert-or-replace of a record that expires <paramref name="expiresAfter"/> from now: see
    /// <see cref="Collection{TKey,TValue}.UpsertAsync(TValue, TimeSpan, CancellationToken)"/>.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="expiresAfter"/> is not positive, or ends after the last representable time.</exception>
    public WriteBatch<TKey, TValue> Upsert(TValue value, TimeSpan expiresAfter) => Add(WriteKind.Upsert, value, WriteExpiry.At(_collection.ExpiryOf(expiresAfter)));

    /// <summary>Adds an insert of a record that expires at <paramref name="expiresAt"/>, which must be in the future.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="expiresAt"/> is not after now (by the store's clock).</exception>
    public WriteBatch<TKey, TValue> Insert(TValue value, DateTimeOffset expiresAt) => Add(WriteKind.Insert, value, WriteExpiry.At(_collection.ExpiryAt(expiresAt)));

    /// <summary>
    /// Adds an insert-or-replace of a record that expires at <paramref name="expiresAt"/>, which must be in the future:
    /// a change to an auction that keeps its end.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="expiresAt"/> is not after now (by the store's clock).</exception>
    public WriteBatch<TKey, TValue> Upsert(TValue value, DateTimeOffset expiresAt) => Add(WriteKind.Upsert, value, WriteExpiry.At(_collection.ExpiryAt(expiresAt)));

    /// <summary>Adds a delete; deleting a missing key is allowed and changes nothing.</summary>
    public WriteBatch<TKey, TValue> Delete(TKey key)
    {
        Writes.Add(_collection.Encode(WriteKind.Delete, key, default));
        return this;
    }

    /// <summary>
    /// Adds an insert-or-replace of <paramref name="value"/> as it was stored elsewhere (a checkpoint), with the end it
    /// had there: <paramref name="expiry"/> is a time or never, and the collection's policy does not replace it.
    /// </summary>
    internal WriteBatch<TKey, TValue> Restore(TValue value, WriteExpiry expiry)
    {
        Debug.Assert(expiry.Given, "a restored record keeps the end it had, never the policy's");
        return Add(WriteKind.Upsert, value, expiry);
    }

    private WriteBatch<TKey, TValue> Add(WriteKind kind, TValue value, WriteExpiry expiry = default)
    {
        ArgumentNullException.ThrowIfNull(value);
        Writes.Add(_collection.Encode(kind, _collection.KeyOf(value), value, expiry));
        return this;
    }
}
