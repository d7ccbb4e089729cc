using Microsoft.Extensions.Logging;

namespace Stellar.Store.Diagnostics;

/// <summary>
/// The store's log events, source-generated: each checks <see cref="ILogger.IsEnabled"/> before it formats or allocates
/// anything, so a store without a logger factory (a <c>NullLogger</c>) pays one interface call per event. Ids and names
/// come from <see cref="StoreLogEvents"/>.
/// </summary>
/// <remarks>Thread safety: any thread, as the logger allows (every <see cref="ILogger"/> must).</remarks>
internal static partial class StoreLog
{
    [LoggerMessage(EventId = StoreLogEvents.StoreOpened, EventName = nameof(StoreLogEvents.StoreOpened), Level = LogLevel.Information,
        Message = "Opened store {Path}: {BlocksVerified} blocks verified in {ElapsedMs:F1} ms, manifest generation {ManifestGeneration}")]
    public static partial void StoreOpened(ILogger logger, string path, long blocksVerified, double elapsedMs, ulong manifestGeneration);

    [LoggerMessage(EventId = StoreLogEvents.TornTailsCut, EventName = nameof(StoreLogEvents.TornTailsCut), Level = LogLevel.Warning,
        Message = "Recovery of store {Path} cut {TruncatedBytes} bytes of torn tail (partial blocks a crash left) from {ShardCount} shard file(s): {Shards}")]
    public static partial void TornTailsCut(ILogger logger, string path, long truncatedBytes, int shardCount, IReadOnlyList<string> shards);

    [LoggerMessage(EventId = StoreLogEvents.UnlistedFilesIgnored, EventName = nameof(StoreLogEvents.UnlistedFilesIgnored), Level = LogLevel.Warning,
        Message = "Recovery of store {Path} left {FileCount} file(s) in place that its manifest does not name: {Files}")]
    public static partial void UnlistedFilesIgnored(ILogger logger, string path, int fileCount, IReadOnlyList<string> files);

    [LoggerMessage(EventId = StoreLogEvents.LeftoverFilesRemoved, EventName = nameof(StoreLogEvents.LeftoverFilesRemoved), Level = LogLevel.Information,
        Message = "Recovery of store {Path} removed {FileCount} shard file(s) an interrupted compaction or shard roll left: {Files}")]
    public static partial void LeftoverFilesRemoved(ILogger logger, string path, int fileCount, IReadOnlyList<string> files);

    [LoggerMessage(EventId = StoreLogEvents.UncommittedUnitBlocksIgnored, EventName = nameof(StoreLogEvents.UncommittedUnitBlocksIgnored), Level = LogLevel.Warning,
        Message = "Collection {Collection} left out {Blocks} block(s) of writes across collections whose unit never committed")]
    public static partial void UncommittedUnitBlocksIgnored(ILogger logger, string collection, long blocks);

    [LoggerMessage(EventId = StoreLogEvents.StoreClosed, EventName = nameof(StoreLogEvents.StoreClosed), Level = LogLevel.Information,
        Message = "Closed store {Path}")]
    public static partial void StoreClosed(ILogger logger, string path);

    [LoggerMessage(EventId = StoreLogEvents.CollectionFaulted, EventName = nameof(StoreLogEvents.CollectionFaulted), Level = LogLevel.Error,
        Message = "Collection {Collection} is faulted: a write or flush failed in storage, and it refuses writes until the store is reopened")]
    public static partial void CollectionFaulted(ILogger logger, string collection, Exception failure);

    [LoggerMessage(EventId = StoreLogEvents.CompactionStarted, EventName = nameof(StoreLogEvents.CompactionStarted), Level = LogLevel.Information,
        Message = "Compaction of collection {Collection} started: {Shards} shard(s), {StoredBytes} bytes stored, {LiveBytes} live")]
    public static partial void CompactionStarted(ILogger logger, string collection, int shards, long storedBytes, long liveBytes);

    [LoggerMessage(EventId = StoreLogEvents.CompactionFinished, EventName = nameof(StoreLogEvents.CompactionFinished), Level = LogLevel.Information,
        Message = "Compaction of collection {Collection} finished in {ElapsedMs:F1} ms: {StoredBytesBefore} bytes stored before, {StoredBytesAfter} after")]
    public static partial void CompactionFinished(ILogger logger, string collection, double elapsedMs, long storedBytesBefore, long storedBytesAfter);

    [LoggerMessage(EventId = StoreLogEvents.CompactionFailed, EventName = nameof(StoreLogEvents.CompactionFailed), Level = LogLevel.Error,
        Message = "Compaction of collection {Collection} failed after {ElapsedMs:F1} ms")]
    public static partial void CompactionFailed(ILogger logger, string collection, double elapsedMs, Exception failure);

    [LoggerMessage(EventId = StoreLogEvents.CompactionHoldPassed, EventName = nameof(StoreLogEvents.CompactionHoldPassed), Level = LogLevel.Warning,
        Message = "Compaction of collection {Collection} passed the hold of cursor {Cursor}: keeping the history after its position {Position} would take {HeldBytes} bytes of shard files, over its bound of {MaxHeldBytes}; the cursor's next read finds its position unavailable")]
    public static partial void CompactionHoldPassed(ILogger logger, string collection, string cursor, string position, long heldBytes, long maxHeldBytes);

    [LoggerMessage(EventId = StoreLogEvents.SlowFsync, EventName = nameof(StoreLogEvents.SlowFsync), Level = LogLevel.Warning,
        Message = "Fsync of {File} (collection {Collection}) took {ElapsedMs:F1} ms, at least the {ThresholdMs:F0} ms threshold")]
    public static partial void SlowFsync(ILogger logger, string file, string collection, double elapsedMs, double thresholdMs);

    [LoggerMessage(EventId = StoreLogEvents.ActorSystemLog, EventName = nameof(StoreLogEvents.ActorSystemLog), Message = "{Source}: {Message}")]
    public static partial void ActorSystemLog(ILogger logger, LogLevel level, string source, object? message, Exception? cause);
}
