namespace Stellar.Store.Indexes;

/// <summary>
/// Where a record's current entry of an index is: a node of the index's skip list, or (with no node) a slot of its
/// <see cref="SortedRun{TIndexKey,TKey,TValue}"/>.
/// </summary>
/// <remarks>Thread safety: immutable.</remarks>
internal readonly record struct EntryPlace<TIndexKey, TKey, TValue>(int Slot, SkipList<IndexEntry<TIndexKey, TKey, TValue>>.Node? Node)
{
    /// <summary>The entry's index key, read from the node or from <paramref name="run"/>.</summary>
    public TIndexKey IndexKey(SortedRun<TIndexKey, TKey, TValue> run) => Node is { } node ? node.Item.IndexKey : run.IndexKeyAt(Slot);
}
