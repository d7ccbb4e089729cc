using Stellar.Store.Units;

namespace Stellar.Store;

/// <summary>
/// The writes of one atomic <see cref="StellarStore.WriteAsync"/> across collections: <see cref="In{TKey,TValue}"/>
/// gives the batch of each collection, whose writes are checked in order as an atomic batch's are. The writes of every
/// collection are stored and become visible together, or, if any is rejected, none is stored anywhere.
/// </summary>
/// <remarks>Not thread-safe: fill it on the thread that called <c>WriteAsync</c>, inside the callback.</remarks>
public sealed class StoreWriteBatch
{
    private readonly IStoreContext _store;
    private readonly Dictionary<object, IUnitBatch> _batches = new(ReferenceEqualityComparer.Instance);

    internal StoreWriteBatch(IStoreContext store) => _store = store;

    /// <summary>The collections' batches.</summary>
    internal IEnumerable<IUnitBatch> Batches => _batches.Values;

    /// <summary>The batch of <paramref name="collection"/> in this unit; the same one for every call with it.</summary>
    /// <exception cref="ArgumentException">The collection belongs to another store.</exception>
    public WriteBatch<TKey, TValue> In<TKey, TValue>(Collection<TKey, TValue> collection)
        where TKey : notnull
    {
        ArgumentNullException.ThrowIfNull(collection);
        if (!collection.BelongsTo(_store))
        {
            throw new ArgumentException($"Collection '{collection.Name}' belongs to another store; a write spans the collections of one store.", nameof(collection));
        }

        if (!_batches.TryGetValue(collection, out var batch))
        {
            batch = new CollectionUnitBatch<TKey, TValue>(collection);
            _batches[collection] = batch;
        }

        return ((CollectionUnitBatch<TKey, TValue>)batch).Batch;
    }
}
