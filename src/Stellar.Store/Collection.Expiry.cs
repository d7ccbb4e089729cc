using Stellar.Store.Engine;

namespace Stellar.Store;

/// <summary>Expiry: writes that carry an end, the collection's expiry policy, and the removal of expired records.</summary>
public sealed partial class Collection<TKey, TValue>
{
    /// <summary>
    /// Inserts <paramref name="value"/> as a record that expires <paramref name="expiresAfter"/> from now, by the store's
    /// <see cref="StoreOptions.Clock"/>; fails with <see cref="DuplicateKeyException"/> (nothing stored) when its key
    /// exists. At that time the record vanishes from every read (gets, queries, counts, indexes; a snapshot taken
    /// before then still sees it), and the writer removes it with a delete record soon after (see
    /// <see cref="RemoveExpiredAsync"/>). A later write of the key without an expiry makes a record that never expires.
    /// </summary>
    /// <remarks>Thread safety: any thread. Durable as <see cref="InsertAsync(TValue, CancellationToken)"/>, with its expiry time.</remarks>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="expiresAfter"/> is not positive, or ends after the last representable time.</exception>
    public Task InsertAsync(TValue value, TimeSpan expiresAfter, CancellationToken cancellationToken = default) =>
        SubmitValueAsync(WriteKind.Insert, value, cancellationToken, expiresAfter);

    /// <summary>
    /// Inserts <paramref name="value"/> or replaces the value under its key, as a record that expires
    /// <paramref name="expiresAfter"/> from now (see <see cref="InsertAsync(TValue, TimeSpan, CancellationToken)"/>): a
    /// session or an auction kept alive by writing it again.
    /// </summary>
    /// <remarks>Thread safety: any thread. Durable as <see cref="UpsertAsync(TValue, CancellationToken)"/>, with its expiry time.</remarks>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="expiresAfter"/> is not positive, or ends after the last representable time.</exception>
    public Task UpsertAsync(TValue value, TimeSpan expiresAfter, CancellationToken cancellationToken = default) =>
        SubmitValueAsync(WriteKind.Upsert, value, cancellationToken, expiresAfter);

    /// <summary>
    /// Inserts <paramref name="value"/> as a record that expires at <paramref name="expiresAt"/>, which must be in the
    /// future; otherwise as <see cref="InsertAsync(TValue, TimeSpan, CancellationToken)"/>.
    /// </summary>
    /// <remarks>Thread safety: any thread. Durable as <see cref="InsertAsync(TValue, CancellationToken)"/>, with its expiry time.</remarks>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="expiresAt"/> is not after now (by the store's clock).</exception>
    public Task InsertAsync(TValue value, DateTimeOffset expiresAt, CancellationToken cancellationToken = default) =>
        SubmitValueAsync(WriteKind.Insert, value, cancellationToken, expiresAt: expiresAt);

    /// <summary>
    /// Inserts <paramref name="value"/> or replaces the value under its key, as a record that expires at
    /// <paramref name="expiresAt"/>, which must be in the future: a change to an auction that keeps its end (a write
    /// without an expiry would make a record that never expires).
    /// </summary>
    /// <remarks>Thread safety: any thread. Durable as <see cref="UpsertAsync(TValue, CancellationToken)"/>, with its expiry time.</remarks>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="expiresAt"/> is not after now (by the store's clock).</exception>
    public Task UpsertAsync(TValue value, DateTimeOffset expiresAt, CancellationToken cancellationToken = default) =>
        SubmitValueAsync(WriteKind.Upsert, value, cancellationToken, expiresAt: expiresAt);

    /// <summary>When the record under <paramref name="key"/> expires, or null when it never does or is missing (expired included).</summary>
    /// <remarks>Thread safety: any thread, lock-free, as <see cref="TryGet"/>.</remarks>
    /// <exception cref="ObjectDisposedException">The store was disposed.</exception>
    public DateTimeOffset? ExpiresAt(TKey key)
    {
        _store.ThrowIfDisposed();
        return _map.TryGetLatest(key, out var node) && node.ExpiresAt != 0 ? new DateTimeOffset(node.ExpiresAt, TimeSpan.Zero) : null;
    }

    /// <summary>
    /// Removes every record that has expired by now, with a delete record each, in one commit; completes with how many
    /// it removed. Readers stopped seeing them at their time already: this makes their removal durable, so that a
    /// reopen (or a clock set back) agrees, and a compaction reclaims their space. The writer does it on its own at the
    /// start of every group of writes and every <see cref="StoreOptions.ExpirySweepInterval"/> while the collection is
    /// idle (what it removed so is not counted here); call it to do it now.
    /// </summary>
    /// <remarks>Thread safety: any thread. When the task completes, the deletes are as durable as any write under the store's <see cref="Durability"/>.</remarks>
    /// <exception cref="InvalidOperationException">The store was opened read-only (a checkpoint); nothing is removed.</exception>
    public async Task<int> RemoveExpiredAsync(CancellationToken cancellationToken = default)
    {
        _store.ThrowIfDisposed();
        _store.ThrowIfReadOnly();
        var step = new ExpiryStep<TKey, TValue>();
        await SubmitAsync(step, cancellationToken).ConfigureAwait(false);
        return step.Removed;
    }

    /// <summary>
    /// Sets the collection's expiry policy: from now on, every insert, update or upsert that gives no expiry of its own
    /// (one by one, in a batch, in a cross-collection write or in a bulk import) makes a record that expires
    /// <paramref name="expiresAfter"/> after it is written, as if written with
    /// <see cref="UpsertAsync(TValue, TimeSpan, CancellationToken)"/>: a session kept alive by writing it again.
    /// </summary>
    /// <remarks>
    /// Records already stored keep the expiry they were written with, and a write that gives its own expiry keeps it.
    /// The policy lives in memory, like an index: set it again after reopening the store. Thread safety: any thread; a
    /// write being encoded on another thread at the same time takes the old policy or the new one.
    /// </remarks>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="expiresAfter"/> is not positive.</exception>
    public void SetExpiryPolicy(TimeSpan expiresAfter)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(expiresAfter, TimeSpan.Zero);
        Volatile.Write(ref _expiryPolicy, _ => ExpiryOf(expiresAfter));
    }

    /// <summary>
    /// Sets the collection's expiry policy: from now on, every insert, update or upsert that gives no expiry of its own
    /// makes a record that expires at the time <paramref name="expiresAt"/> gives for its value (null: it never expires),
    /// which must be in the future: an auction that ends at its own end time. See <see cref="SetExpiryPolicy(TimeSpan)"/>.
    /// </summary>
    /// <remarks>
    /// Thread safety: any thread; <paramref name="expiresAt"/> runs on the writing caller's thread, once per write, and a
    /// time not in the future fails that write with <see cref="ArgumentOutOfRangeException"/> (nothing of it stored).
    /// </remarks>
    public void SetExpiryPolicy(Func<TValue, DateTimeOffset?> expiresAt)
    {
        ArgumentNullException.ThrowIfNull(expiresAt);
        Volatile.Write(ref _expiryPolicy, value => expiresAt(value) is { } at ? ExpiryAt(at) : 0);
    }

    /// <summary>Removes the collection's expiry policy: writes that give no expiry make records that never expire. Thread safety: any thread.</summary>
    public void ClearExpiryPolicy() => Volatile.Write(ref _expiryPolicy, null);

    /// <summary>When a record written now expires if it expires <paramref name="expiresAfter"/> from now, in UTC ticks.</summary>
    internal long ExpiryOf(TimeSpan expiresAfter)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(expiresAfter, TimeSpan.Zero);
        var now = _map.Now;
        if (expiresAfter.Ticks > DateTimeOffset.MaxValue.UtcTicks - now)
        {
            throw new ArgumentOutOfRangeException(nameof(expiresAfter), expiresAfter, "The record would expire after the last time a DateTimeOffset can hold.");
        }

        return now + expiresAfter.Ticks;
    }

    /// <summary>The expiry time <paramref name="expiresAt"/> in UTC ticks, once checked to be after now.</summary>
    internal long ExpiryAt(DateTimeOffset expiresAt)
    {
        var ticks = expiresAt.UtcTicks;
        if (ticks <= _map.Now)
        {
            throw new ArgumentOutOfRangeException(nameof(expiresAt), expiresAt, "The expiry time is not in the future: the record would be expired before it is stored.");
        }

        return ticks;
    }
}
