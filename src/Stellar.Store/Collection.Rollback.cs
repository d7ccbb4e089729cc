using Stellar.Store.Engine;

namespace Stellar.Store;

/// <summary>The selective rollback of chosen keys to their values at a checkpoint.</summary>
public sealed partial class Collection<TKey, TValue>
{
    /// <summary>
    /// Restores <paramref name="keys"/> to what they were in <paramref name="checkpoint"/> (a store opened by
    /// <see cref="StellarStore.OpenReadOnlyAsync"/>), in one atomic batch: a key the checkpoint's collection of this
    /// name holds gets that value back, with the end it had there (a record that never expired there never expires
    /// here), and a key it lacks (or a collection it lacks) is deleted. Every other key is left as it is: the case of
    /// an exploit that duplicated items, undone without rolling the world back. Completes with the number of keys
    /// restored or deleted.
    /// </summary>
    /// <remarks>Thread safety: any thread. When the task completes, the batch is as durable as any write under the
    /// store's <see cref="Durability"/>. This collection's expiry policy does not apply: each record keeps the end the
    /// checkpoint gives it. A record whose end has passed is not brought back: the checkpoint is read by its own
    /// store's clock, where such a record is missing, and one it still shows whose end has passed by this store's
    /// clock counts as missing too, so its key is deleted.</remarks>
    /// <exception cref="ArgumentException">The batch's records take more than <see cref="MaxBatchBytes"/>; nothing is stored.</exception>
    /// <exception cref="InvalidOperationException">The checkpoint's collection of this name has other key or value types, or
    /// this collection's store was itself opened read-only (a checkpoint), which takes no rollback.</exception>
    public async Task<int> RollbackAsync(StellarStore checkpoint, IEnumerable<TKey> keys, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(checkpoint);
        ArgumentNullException.ThrowIfNull(keys);
        _store.ThrowIfDisposed();
        _store.ThrowIfReadOnly();
        var chosen = keys.Distinct().ToList();
        var source = checkpoint.CollectionNames.Contains(Name) ? checkpoint.GetCollection(Name, _keySelector) : null;
        using var then = source?.Snapshot();
        await WriteAsync(
            batch =>
            {
                var now = _map.Now;
                foreach (var key in chosen)
                {
                    if (then is not null && then.TryGet(key, out var value, out var expiresAt) && (expiresAt == 0 || expiresAt > now))
                    {
                        batch.Restore(value, expiresAt == 0 ? WriteExpiry.Never : WriteExpiry.At(expiresAt));
                    }
                    else
                    {
                        batch.Delete(key);
                    }
                }
            },
            cancellationToken).ConfigureAwait(false);
        return chosen.Count;
    }
}
