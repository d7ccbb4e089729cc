using Stellar.Store.Actors;

namespace Stellar.Store.Units;

/// <summary>A collection's writes of a <see cref="StoreWriteBatch"/>: its <see cref="WriteBatch{TKey,TValue}"/>, and the collection.</summary>
/// <remarks>Not thread-safe: used on the thread that called <see cref="StellarStore.WriteAsync"/>.</remarks>
internal sealed class CollectionUnitBatch<TKey, TValue> : IUnitBatch
    where TKey : notnull
{
    private readonly Collection<TKey, TValue> _collection;

    public CollectionUnitBatch(Collection<TKey, TValue> collection)
    {
        _collection = collection;
        Batch = new WriteBatch<TKey, TValue>(collection);
    }

    /// <summary>The batch the caller fills.</summary>
    public WriteBatch<TKey, TValue> Batch { get; }

    public IUnitParticipant Participant => _collection.Participant;

    public IWriterHandle Writer => _collection.Writer;

    public int Count => Batch.Writes.Count;

    public long Bytes => Batch.Writes.Sum(w => (long)w.Length);

    public object Writes => Batch.Writes;

    public void CheckSize(string paramName) => _collection.CheckBatchSize(Batch.Writes, paramName);

    public Task SubmitAloneAsync(CancellationToken cancellationToken) => _collection.SubmitAtomicAsync(Batch.Writes, cancellationToken);

    public void Release() => Batch.Writes.ForEach(w => w.Release());
}
