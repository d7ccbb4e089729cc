namespace Stellar.Store.Indexes;

/// <summary>
/// One record under one index key, for the versions from <see cref="From"/> up to (not including)
/// <see cref="Until"/>: a reader at version <c>v</c> keeps the entry when <c>From &lt;= v &lt; Until</c>, so that
/// index answers and records come from the same version.
/// </summary>
/// <remarks>
/// Thread safety: immutable but for <see cref="Until"/>, which the writer sets once, when the record is deleted or
/// moves to another index key, to a version newer than any published one (so no reader's answer changes).
/// A probe (<see cref="Bound"/> not 0) is never stored: it marks where a search starts or stops.
/// </remarks>
internal sealed class IndexEntry<TIndexKey, TKey>
{
    private long _until = long.MaxValue;

    public IndexEntry(TIndexKey indexKey, TKey key, long from)
    {
        IndexKey = indexKey;
        Key = key;
        From = from;
    }

    private IndexEntry(TIndexKey indexKey, TKey key, sbyte bound)
    {
        IndexKey = indexKey;
        Key = key;
        Bound = bound;
    }

    public TIndexKey IndexKey { get; }

    /// <summary>The record's primary key.</summary>
    public TKey Key { get; }

    /// <summary>The version that stored the record under this index key.</summary>
    public long From { get; }

    /// <summary>The version that deleted the record or moved it to another index key; <see cref="long.MaxValue"/> while current.</summary>
    public long Until => Volatile.Read(ref _until);

    /// <summary>
    /// 0 for an entry; for a probe, -2 before every entry of its index key, 2 after them all, 1 after every entry of
    /// its index key and primary key.
    /// </summary>
    public sbyte Bound { get; }

    /// <summary>A probe that sorts before every entry of <paramref name="indexKey"/>.</summary>
    public static IndexEntry<TIndexKey, TKey> Before(TIndexKey indexKey) => new(indexKey, default!, -2);

    /// <summary>A probe that sorts after every entry of <paramref name="indexKey"/> and <paramref name="key"/>, whatever version it starts at.</summary>
    public static IndexEntry<TIndexKey, TKey> AfterRecord(TIndexKey indexKey, TKey key) => new(indexKey, key, 1);

    /// <summary>Whether a reader at <paramref name="version"/> sees the entry.</summary>
    public bool VisibleAt(long version) => From <= version && version < Until;

    /// <summary>Writer only: the entry ends at <paramref name="version"/>.</summary>
    public void End(long version) => Volatile.Write(ref _until, version);
}
