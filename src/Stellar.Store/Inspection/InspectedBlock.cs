using Stellar.Store.Format;

namespace Stellar.Store.Inspection;

/// <summary>
/// What a read of one stretch of a shard file found: either a block that passed every check (its header and
/// records), or a stretch of bytes that did not (<see cref="Problem"/>), from <see cref="Offset"/> to the next block
/// that passes, or to the end of the file. Immutable.
/// </summary>
/// <param name="Path">The shard file's full path.</param>
/// <param name="ShardId">The shard's id.</param>
/// <param name="Offset">Where the block or the bad stretch starts in the file.</param>
/// <param name="Length">The bytes of the block or of the bad stretch.</param>
/// <param name="Header">The block's header; for a bad stretch, the header found at its start when that one parsed.</param>
/// <param name="Records">The records of a good block, in order; empty for a bad stretch.</param>
/// <param name="Unit">The round a good block's records belong to, when it is a part of a write across collections.</param>
/// <param name="Problem">Why the stretch is bad; null for a good block.</param>
/// <param name="IsTornTail">
/// A bad stretch at the end of the active shard with no good block after it: what a crash in the middle of a write
/// leaves, which the next open cuts and reports, not damage to committed data.
/// </param>
internal sealed record InspectedBlock(
    string Path,
    uint ShardId,
    long Offset,
    long Length,
    BlockHeader? Header,
    IReadOnlyList<InspectedRecord> Records,
    UnitTag? Unit,
    string? Problem,
    bool IsTornTail = false)
{
    /// <summary>Whether the block passed every check.</summary>
    public bool IsGood => Problem is null;
}
