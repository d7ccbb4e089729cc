using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// A record a compaction copied: its version node, the output shard it now lives in, and, for a large value,
/// where in that shard the value now is. The writer repoints the node at finish.
/// </summary>
internal readonly record struct MovedRecord<TKey, TValue>(TKey Key, VersionNode<TValue> Node, uint ShardId, ValueLocation? Location);
