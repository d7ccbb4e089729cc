using System.Diagnostics;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// One record under one index key, for the versions from <see cref="From"/> up to (not including)
/// <see cref="Until"/>: a reader at version <c>v</c> keeps the entry when <c>From &lt;= v &lt; Until</c>, so that
/// index answers and records come from the same version.
/// </summary>
/// <remarks>
/// <para>The entry holds the record's newest version node while the record keeps this index key, so a reader goes from
/// the entry to the record's version at its snapshot by the node chain, without looking the key up.</para>
/// <para>An entry lives as long as its record keeps its index key, so every young collection of the collector copies
/// the entries made since the last one: it holds only what a reader needs. No two entries of a list share their index
/// key, record and <see cref="From"/>: an entry that ends at the version it began at, which no reader can see, leaves
/// the list at once (<see cref="OrderedIndex{TIndexKey,TKey,TValue}"/>). A probe keeps its bound in <see cref="From"/>,
/// below every version.</para>
/// <para>Thread safety: immutable but for <see cref="Until"/>, which the writer sets once, when the record is deleted
/// or moves to another index key, to a version newer than any published one (so no reader's answer changes), and
/// <see cref="Node"/>, which the writer moves to each newer version of the record. A probe (<see cref="Bound"/> not 0)
/// is never stored: it marks where a search starts or stops.</para>
/// </remarks>
internal sealed class IndexEntry<TIndexKey, TKey, TValue>
{
    /// <summary>A probe's <see cref="From"/> less its bound: below every version.</summary>
    private const long ProbeFrom = long.MinValue + 2;

    private long _until = long.MaxValue;
    private VersionNode<TValue>? _node;

    public IndexEntry(TIndexKey indexKey, TKey key, long from, VersionNode<TValue> node)
    {
        Debug.Assert(from >= 0, "versions are not negative");
        IndexKey = indexKey;
        Key = key;
        From = from;
        _node = node;
    }

    private IndexEntry(TIndexKey indexKey, TKey key, sbyte bound)
    {
        IndexKey = indexKey;
        Key = key;
        From = ProbeFrom + bound;
    }

    public TIndexKey IndexKey { get; }

    /// <summary>The record's primary key.</summary>
    public TKey Key { get; }

    /// <summary>The version that stored the record under this index key (for a probe, its bound, below every version).</summary>
    public long From { get; }

    /// <summary>
    /// The record's newest version node while it has this index key (null for a probe): its chain holds the version any
    /// reader that sees the entry reads.
    /// </summary>
    public VersionNode<TValue>? Node => Volatile.Read(ref _node);

    /// <summary>The version that deleted the record or moved it to another index key; <see cref="long.MaxValue"/> while current.</summary>
    public long Until => Volatile.Read(ref _until);

    /// <summary>
    /// 0 for an entry; for a probe, -2 before every entry of its index key, 2 after them all, 1 after every entry of
    /// its index key and primary key.
    /// </summary>
    public sbyte Bound => From < 0 ? (sbyte)(From - ProbeFrom) : (sbyte)0;

    /// <summary>A probe that sorts before every entry of <paramref name="indexKey"/>.</summary>
    public static IndexEntry<TIndexKey, TKey, TValue> Before(TIndexKey indexKey) => new(indexKey, default!, -2);

    /// <summary>A probe that sorts after every entry of <paramref name="indexKey"/> and <paramref name="key"/>, whatever version it starts at.</summary>
    public static IndexEntry<TIndexKey, TKey, TValue> AfterRecord(TIndexKey indexKey, TKey key) => new(indexKey, key, 1);

    /// <summary>Whether a reader at <paramref name="version"/> sees the entry.</summary>
    public bool VisibleAt(long version) => From <= version && version < Until;

    /// <summary>Writer only: the record has a newer version <paramref name="node"/> with the same index key.</summary>
    public void Refer(VersionNode<TValue> node) => Volatile.Write(ref _node, node);

    /// <summary>Writer only: the entry ends at <paramref name="version"/>.</summary>
    public void End(long version) => Volatile.Write(ref _until, version);
}
