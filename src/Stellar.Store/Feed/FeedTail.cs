namespace Stellar.Store.Feed;

/// <summary>
/// How far a collection's blocks are committed and readable: every block with a sequence below <see cref="Next"/>,
/// the last of them ending at <see cref="End"/> in shard <see cref="ShardId"/> (0 while the collection has none).
/// </summary>
internal sealed record FeedTail(ulong Next, uint ShardId, long End);
