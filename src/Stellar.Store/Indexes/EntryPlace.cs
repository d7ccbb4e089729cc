namespace Stellar.Store.Indexes;

/// <summary>
/// Where a record's current entry of an index is: an entry of the index's <see cref="OrderedList{T,TLead}"/>, or (with none) a slot of its
/// <see cref="SortedRun{TIndexKey,TKey,TValue}"/>.
/// </summary>
/// <remarks>Thread safety: immutable.</remarks>
internal readonly record struct EntryPlace<TIndexKey, TKey, TValue>(int Slot, IndexEntry<TIndexKey, TKey, TValue>? Entry)
{
    /// <summary>The entry's index key, read from the entry or from <paramref name="run"/>.</summary>
    public TIndexKey IndexKey(SortedRun<TIndexKey, TKey, TValue> run) => Entry is { } entry ? entry.IndexKey : run.IndexKeyAt(Slot);
}
