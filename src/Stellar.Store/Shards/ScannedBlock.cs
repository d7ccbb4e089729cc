using Stellar.Store.Format;

namespace Stellar.Store.Shards;

/// <summary>A block that passed verification at open: where it is and its header.</summary>
internal readonly record struct ScannedBlock(uint ShardId, long Offset, BlockHeader Header);
