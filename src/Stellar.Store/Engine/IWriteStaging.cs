namespace Stellar.Store.Engine;

/// <summary>
/// The engine's handling of each kind of <see cref="CollectionWrite{TKey,TValue}"/>, on the writer's turn (cheap, no
/// I/O). One method per kind: adding a kind adds a method here, which every engine must then implement.
/// </summary>
internal interface IWriteStaging<TKey, TValue>
{
    /// <summary>Checks one write against the staged state and stages it; <paramref name="existed"/> is whether its key existed.</summary>
    Exception? StageSingle(SingleWrite<TKey, TValue> write, out bool existed);

    /// <summary>Checks a batch (all or nothing when atomic) and stages it.</summary>
    Exception? StageBatch(BatchWrite<TKey, TValue> batch);

    /// <summary>
    /// Checks every unit of a round's part against the staged state and, when all hold, stages them as the group's last
    /// writes, tentatively: <c>Unstage</c> drops them again. Returns a <see cref="PartRejectedException"/> naming every
    /// unit that broke a precondition (then nothing is staged), or null.
    /// </summary>
    Exception? StagePart(UnitPartWrite<TKey, TValue> part);

    /// <summary>Queues a compaction's begin or finish to run at the next commit, before its blocks.</summary>
    void StageCompaction(CompactionStep<TKey, TValue> step);

    /// <summary>Nothing to store: the commit's publish cuts what released snapshots held, its steps delete files.</summary>
    void StageRelease(ReleaseStep<TKey, TValue> step);

    /// <summary>Queues an index to be built and kept (or dropped) at the next commit, before its blocks.</summary>
    void StageIndex(IndexStep<TKey, TValue> step);

    /// <summary>Stages the delete of every record that has expired and that no write of the group touches.</summary>
    void StageExpiry(ExpiryStep<TKey, TValue> step);

    /// <summary>Stages a checkpoint's cut of the collection, run at the commit of its group, before any block.</summary>
    void StageCheckpoint(CheckpointStep<TKey, TValue> step);
}
