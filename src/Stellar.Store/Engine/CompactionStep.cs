namespace Stellar.Store.Engine;

/// <summary>
/// A compaction's request to the collection's writer, queued like a write so that it runs in the writer's order:
/// <see cref="Begin"/> seals the active shard and pins the version to copy, the finish swaps the output in.
/// </summary>
internal sealed class CompactionStep<TKey, TValue> : CollectionWrite<TKey, TValue>
{
    public CompactionStep(CompactionRun<TKey, TValue> run, bool begin)
    {
        Run = run;
        Begin = begin;
    }

    public CompactionRun<TKey, TValue> Run { get; }

    public bool Begin { get; }

    /// <summary>Nothing of it is queued data: it never holds back a write.</summary>
    public override long Bytes => 0;

    /// <summary>It holds no buffers.</summary>
    public override void Release()
    {
    }

    public override Exception? StageInto(IWriteStaging<TKey, TValue> stager, out bool existed)
    {
        existed = false;
        stager.StageCompaction(this);
        return null;
    }
}
