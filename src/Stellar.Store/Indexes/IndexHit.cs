using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>An index entry a reader sees: its index key, its record's primary key and the record's newest version node.</summary>
internal readonly record struct IndexHit<TIndexKey, TKey, TValue>(TIndexKey IndexKey, TKey Key, VersionNode<TValue> Node);
