using Stellar.Store.Checkpoints;

namespace Stellar.Store.Engine;

/// <summary>
/// A checkpoint's request to the collection's writer, queued like a write so that it runs between two groups: the
/// collection's shard chain as committed so far is cut into <see cref="Checkpoint"/> (see
/// <see cref="Shards.ShardChain.CutInto"/>). It stores nothing, and a failure of the cut fails the checkpoint, never
/// the collection.
/// </summary>
internal sealed class CheckpointStep<TKey, TValue> : CollectionWrite<TKey, TValue>
{
    public CheckpointStep(CheckpointBuilder checkpoint) => Checkpoint = checkpoint;

    public CheckpointBuilder Checkpoint { get; }

    /// <summary>Nothing of it is queued data: it never holds back a write.</summary>
    public override long Bytes => 0;

    /// <summary>It holds no buffers.</summary>
    public override void Release()
    {
    }

    public override Exception? StageInto(IWriteStaging<TKey, TValue> stager, out bool existed)
    {
        existed = false;
        stager.StageCheckpoint(this);
        return null;
    }
}
