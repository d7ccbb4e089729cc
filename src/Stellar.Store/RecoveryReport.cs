namespace Stellar.Store;

/// <summary>What recovery found when the store was opened. Immutable.</summary>
/// <param name="BlocksVerified">Blocks whose header and checksum were verified, over every collection.</param>
/// <param name="TruncatedBytes">Bytes of torn tails (partial blocks at the end of an active shard) that were cut.</param>
/// <param name="TruncatedShards">The shard files whose tails were cut.</param>
/// <param name="IgnoredFiles">
/// Files in the store directory that the manifest does not name (left in place), shard files whose id the manifest
/// never handed out among them (a manifest rolled back or older than its shards): those ids are never reused.
/// </param>
/// <param name="RemovedFiles">
/// Shard files the manifest no longer names but had handed out ids for, deleted at open once every listed shard
/// was verified: what a crash left of a compaction or of a new shard. They never hold the only copy of a committed
/// block.
/// </param>
/// <param name="Elapsed">The time verification took.</param>
public sealed record RecoveryReport(
    long BlocksVerified,
    long TruncatedBytes,
    IReadOnlyList<string> TruncatedShards,
    IReadOnlyList<string> IgnoredFiles,
    IReadOnlyList<string> RemovedFiles,
    TimeSpan Elapsed)
{
    /// <summary>
    /// The generation of the manifest found at open: it grows by one with every change of the manifest. Nothing in
    /// the directory can tell a whole copy of an older state of the store from the latest one; a server that records
    /// this number elsewhere (a player's account, a cloud save's metadata) can, by refusing a generation lower than
    /// the one it recorded. 0 for a new store or a store written by format 1.
    /// </summary>
    public ulong ManifestGeneration { get; init; }
}
