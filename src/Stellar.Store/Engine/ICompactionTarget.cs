namespace Stellar.Store.Engine;

/// <summary>What a <see cref="Compactor"/> needs of a collection's engine, off the writer.</summary>
internal interface ICompactionTarget
{
    /// <summary>Writes the live records of the run's pinned version into its output shards, flushed.</summary>
    void CopyLive(CompactionRun run, CancellationToken cancellationToken);

    /// <summary>Before the swap only: releases the run's pin and removes its output files, which no manifest can name yet.</summary>
    void AbandonCompaction(CompactionRun run);

    /// <summary>Holds automatic compaction back until more garbage gathers.</summary>
    void DeferAutoCompaction();

    /// <summary>Deletes every compacted shard still kept for old snapshots; only once the writer has stopped.</summary>
    void DeleteAllRetired();
}
