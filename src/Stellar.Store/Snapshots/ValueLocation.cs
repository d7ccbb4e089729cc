namespace Stellar.Store.Snapshots;

/// <summary>
/// Where a large value lives on disk, for values kept out of memory: the block that holds it (read and decoded
/// whole, so its checksum and tag are verified on every read) and the value's place in the block's raw records.
/// Immutable; a compaction that moves the value swaps in a new one.
/// </summary>
internal sealed record ValueLocation(uint ShardId, long BlockOffset, int BlockLength, int ValueOffset, int ValueLength);
