namespace Stellar.Store;

/// <summary>
/// The ids of the events a store logs through <see cref="StoreOptions.LoggerFactory"/>, to filter or alert on by number:
/// an id keeps its meaning across versions, and an id that is retired is never given to another event. The event
/// names are these constants' names. Ids group by subject: 1000s open and recovery, 2000s faults, 3000s compaction,
/// 4000s storage, 5000s the actor system.
/// </summary>
/// <remarks>Thread safety: constants only.</remarks>
public static class StoreLogEvents
{
    /// <summary>Information: the store opened; how many blocks recovery verified, how long it took, the manifest generation.</summary>
    public const int StoreOpened = 1000;

    /// <summary>
    /// Warning: recovery cut torn tails (partial blocks a crash left at the end of active shards): the bytes cut and the
    /// shard files. Only writes whose tasks had not completed, or that <see cref="Durability"/> did not promise, are lost.
    /// </summary>
    public const int TornTailsCut = 1001;

    /// <summary>Warning: recovery found files in the store directory that the manifest does not name, and left them in place.</summary>
    public const int UnlistedFilesIgnored = 1002;

    /// <summary>Information: recovery removed shard files an interrupted compaction or shard roll left, which held no committed block.</summary>
    public const int LeftoverFilesRemoved = 1003;

    /// <summary>
    /// Warning: a collection's load left out blocks of writes across collections whose unit never committed (see
    /// <see cref="CollectionStatistics.UncommittedUnitBlocks"/>).
    /// </summary>
    public const int UncommittedUnitBlocksIgnored = 1004;

    /// <summary>Information: the store was closed: every collection flushed and the directory released.</summary>
    public const int StoreClosed = 1010;

    /// <summary>
    /// Error: a collection faulted (a write or flush failed in storage): it refuses writes until the store is reopened.
    /// Logged once per collection, with the failure.
    /// </summary>
    public const int CollectionFaulted = 2000;

    /// <summary>Information: a compaction started: the collection, the shards it rewrites, the stored and live bytes.</summary>
    public const int CompactionStarted = 3000;

    /// <summary>Information: a compaction finished: the stored bytes before and after, and how long it took.</summary>
    public const int CompactionFinished = 3001;

    /// <summary>Error: a compaction failed, with the failure; the collection keeps its shards as they were unless it faulted.</summary>
    public const int CompactionFailed = 3002;

    /// <summary>
    /// Warning: a compaction passed a named cursor's hold: keeping the history after the cursor's position would have
    /// kept more shard bytes than the hold's bound, so the compaction replaced history the cursor had not acknowledged.
    /// The collection, the cursor, its position, the bytes the hold would have kept and its bound. Logged once the
    /// compaction's output is swapped in; the cursor's next read finds its position unavailable.
    /// </summary>
    public const int CompactionHoldPassed = 3003;

    /// <summary>
    /// Warning: an fsync of a shard file took at least <see cref="StoreOptions.SlowFsyncThreshold"/>: the file, the
    /// collection and the time it took.
    /// </summary>
    public const int SlowFsync = 4000;

    /// <summary>
    /// What the actor system a store made for itself logged (category <see cref="StoreTelemetry.AkkaLoggerCategory"/>),
    /// at the level it logged it: the log source and the message.
    /// </summary>
    public const int ActorSystemLog = 5000;
}
