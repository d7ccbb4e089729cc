namespace Stellar.Store.Engine;

/// <summary>
/// A request to the collection's writer, queued like a write, to publish once more after the oldest snapshot was
/// released, so that it cuts the versions and deletes the compacted shard files only that snapshot still needed,
/// even when no write follows. It stores nothing.
/// </summary>
internal sealed class ReleaseStep<TKey, TValue> : CollectionWrite<TKey, TValue>
{
    /// <summary>Nothing of it is queued data: it never holds back a write.</summary>
    public override long Bytes => 0;

    /// <summary>It holds no buffers.</summary>
    public override void Release()
    {
    }

    public override Exception? StageInto(IWriteStaging<TKey, TValue> stager, out bool existed)
    {
        existed = false;
        stager.StageRelease(this);
        return null;
    }
}
