namespace Stellar.Store.Indexes;

/// <summary>
/// Orders index entries by index key, then primary key, then the version they start at, which tells apart every two
/// entries of a list (see <see cref="IndexEntry{TIndexKey,TKey,TValue}"/>); a probe sorts before (or after) every entry
/// of its index key.
/// </summary>
/// <remarks>Thread safety: stateless; any thread.</remarks>
internal sealed class IndexEntryComparer<TIndexKey, TKey, TValue> : IComparer<IndexEntry<TIndexKey, TKey, TValue>>
{
    public IndexEntryComparer(IComparer<TIndexKey> indexKeys, IComparer<TKey> keys)
    {
        IndexKeys = indexKeys;
        Keys = keys;
    }

    /// <summary>The order of index keys alone.</summary>
    public IComparer<TIndexKey> IndexKeys { get; }

    /// <summary>The order of primary keys alone.</summary>
    public IComparer<TKey> Keys { get; }

    public int Compare(IndexEntry<TIndexKey, TKey, TValue>? x, IndexEntry<TIndexKey, TKey, TValue>? y)
    {
        var byIndexKey = IndexKeys.Compare(x!.IndexKey, y!.IndexKey);
        if (byIndexKey != 0)
        {
            return byIndexKey;
        }

        // A probe before (-2) or after (2) the whole index key sorts by its bound alone.
        if (Math.Abs(x.Bound) == 2 || Math.Abs(y.Bound) == 2)
        {
            return x.Bound.CompareTo(y.Bound);
        }

        var byKey = Keys.Compare(x.Key, y.Key);
        if (byKey != 0 || x.Bound != 0 || y.Bound != 0)
        {
            // A probe after a record (1) sorts after every version of it.
            return byKey != 0 ? byKey : x.Bound.CompareTo(y.Bound);
        }

        return x.From.CompareTo(y.From);
    }
}
