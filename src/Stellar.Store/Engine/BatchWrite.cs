namespace Stellar.Store.Engine;

/// <summary>
/// Writes committed together: all or none. <see cref="Atomic"/> batches (<c>WriteAsync</c>) reject whole when
/// any precondition fails and always land in one block; import chunks are upserts whose last write of a key wins.
/// </summary>
internal sealed class BatchWrite<TKey, TValue> : CollectionWrite<TKey, TValue>
{
    public BatchWrite(List<SingleWrite<TKey, TValue>> writes, bool atomic, ImportChain? chain = null)
    {
        Writes = writes;
        Atomic = atomic;
        Chain = chain;
    }

    public List<SingleWrite<TKey, TValue>> Writes { get; }

    public bool Atomic { get; }

    /// <summary>The import this batch is a block of, whose later blocks a rejection of this one rejects; null for others.</summary>
    public ImportChain? Chain { get; }

    /// <summary>The encoded bytes of every write in the batch.</summary>
    public override long Bytes => Writes.Sum(w => (long)w.Length);

    /// <summary>Gives back the record buffer of every write in the batch.</summary>
    public override void Release() => Writes.ForEach(w => w.Release());

    public override Exception? StageInto(IWriteStaging<TKey, TValue> stager, out bool existed)
    {
        existed = false;
        return stager.StageBatch(this);
    }
}
