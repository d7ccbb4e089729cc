namespace Stellar.Store.Engine;

/// <summary>What a <see cref="Compactor"/> schedules: the compactions of one collection, whatever its types.</summary>
internal interface ICompactionTarget
{
    /// <summary>
    /// Runs one whole compaction: the begin step on the writer, the copy off it, the finish step on the writer. A
    /// failure before the finish leaves the collection unchanged; from the finish on, the writer owns the outcome.
    /// </summary>
    Task RunAsync(CancellationToken cancellationToken);

    /// <summary>Asks the writer to publish once more, so what only released snapshots held goes now. Never blocks.</summary>
    Task RequestReleaseAsync();

    /// <summary>Holds automatic compaction back until more garbage gathers.</summary>
    void DeferAutoCompaction();

    /// <summary>Deletes every compacted shard still kept for old snapshots; only once the writer has stopped.</summary>
    void DeleteAllRetired();
}
