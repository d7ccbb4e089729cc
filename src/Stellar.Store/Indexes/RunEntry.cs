using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// One entry of a <see cref="SortedRun{TIndexKey,TKey,TValue}"/>: a record under an index key, and the record's newest
/// version node while it keeps that key.
/// </summary>
/// <remarks>Thread safety: the keys never change; <see cref="Node"/> is written by the writer alone, with a release write.</remarks>
internal struct RunEntry<TIndexKey, TKey, TValue>
{
    public RunEntry(TIndexKey indexKey, TKey key, VersionNode<TValue> node)
    {
        IndexKey = indexKey;
        Key = key;
        Node = node;
    }

    public readonly TIndexKey IndexKey { get; }

    /// <summary>The record's primary key.</summary>
    public readonly TKey Key { get; }

    /// <summary>The record's newest version node; null once the entry ended and no reader can see it.</summary>
    public VersionNode<TValue>? Node;
}
