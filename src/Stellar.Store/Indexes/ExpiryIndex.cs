using System.Diagnostics;
using System.Runtime.CompilerServices;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// The records of a collection that expire, ordered by when: an <see cref="OrderedIndex{TIndexKey,TKey,TValue}"/> on each
/// version's <see cref="VersionNode{TValue}.ExpiresAt"/> (with the order its entry was made in, <see cref="ExpiryKey"/>),
/// kept by the map as it applies versions. It tells a reader how
/// many of the records stored at its version had expired by its time (so that a count leaves them out), and the writer
/// which records to remove.
/// </summary>
/// <remarks>
/// <para>Why this shape: an expired record stays stored until the writer removes it with a delete record (so that a
/// reopen agrees), and readers must not see it meanwhile; the entries of this index carry the versions they are
/// visible at, so an answer is exact at any pinned version. A collection whose records never expire keeps it empty and
/// pays one flag test per write. Each expiring version keeps its own entry (<see cref="ExpiringVersionNode{TValue}.ExpiryEntry"/>),
/// so the write that replaces it finds the entry without a table of its own.</para>
/// <para>Thread safety: as <see cref="OrderedIndex{TIndexKey,TKey,TValue}"/>: maintenance is the writer's, reads are
/// lock-free from any thread.</para>
/// </remarks>
internal sealed class ExpiryIndex<TKey, TValue> : OrderedIndex<ExpiryKey, TKey, TValue>
    where TKey : notnull
{
    /// <summary>Writer only: the <see cref="ExpiryKey.Sequence"/> of the next entry.</summary>
    private long _sequence;

    public ExpiryIndex()
        : base(string.Empty, "expiry", Comparer<ExpiryKey>.Default, NoKeyOrder<TKey>.Instance)
    {
        Serve(0);
    }

    public override bool Unique => false;

    /// <summary>Whether no record stored now expires: then no read needs the clock for a count.</summary>
    public bool Empty => Entries.Count == 0;

    /// <summary>
    /// Load only, before the first publish: adds an entry for every record of <paramref name="map"/> that expires,
    /// in one sort (see <see cref="OrderedIndex{TIndexKey,TKey,TValue}.Build"/>).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public override bool Build(IRecordHeads<TKey, TValue> map, long version, Func<VersionNode<TValue>, TValue> read, long now)
    {
        Debug.Assert(Empty, "built once, before anything was applied");
        var entries = new List<IndexEntry<ExpiryKey, TKey, TValue>>();
        var records = map.Scan();
        while (records.Next(out var key, out var head))
        {
            if (head.Expiring)
            {
                entries.Add(NewEntry(new ExpiryKey(head.ExpiresAt, _sequence++), key, head.Version, head));
            }
        }

        entries.Sort(Order);
        Entries.Load(entries);
        foreach (var entry in entries)
        {
            ((ExpiringVersionNode<TValue>)entry.Node!).ExpiryEntry = entry;
        }

        Serve(version);
        return true;
    }

    /// <summary>The store's own index, of times it orders itself: a failure goes on to the writer, which faults the collection.</summary>
    protected override bool StopsWhenKeepingThrows => false;

    protected override void Apply(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node)
    {
        // The version this one replaced is the next in its chain, and holds the record's current entry if it expires.
        var current = node?.Next is ExpiringVersionNode<TValue> replaced
            ? (IndexEntry<ExpiryKey, TKey, TValue>?)replaced.ExpiryEntry
            : null;
        var expiresAt = deleted || node is null ? 0 : node.ExpiresAt;
        if (current is not null)
        {
            if (current.IndexKey.At == expiresAt)
            {
                // Same time: the entry stays, and leads to the new version.
                current.Refer(node!);
                ((ExpiringVersionNode<TValue>)node!).ExpiryEntry = current;
                return;
            }

            End(current, version);
        }

        if (expiresAt != 0)
        {
            ((ExpiringVersionNode<TValue>)node!).ExpiryEntry = Entries.Add(NewEntry(new ExpiryKey(expiresAt, _sequence++), key, version, node!));
        }
    }

    /// <summary>
    /// Any thread: how many records stored at <paramref name="version"/> (pinned by the caller) had expired by
    /// <paramref name="now"/> (UTC ticks). Walks only the entries that expire by then.
    /// </summary>
    public long ExpiredAt(long version, long now)
    {
        var expired = 0L;
        var entries = Entries.Ascending(null);
        while (entries.MoveNext(out var entry) && entry.IndexKey.At <= now)
        {
            if (entry.VisibleAt(version))
            {
                expired++;
            }
        }

        return expired;
    }

    /// <summary>Any thread: when the first record stored now expires (UTC ticks), or null when none does.</summary>
    public long? Earliest()
    {
        var entries = Entries.Ascending(null);
        while (entries.MoveNext(out var entry))
        {
            if (entry.Until == long.MaxValue)
            {
                return entry.IndexKey.At;
            }
        }

        return null;
    }

    /// <summary>Writer only: the records stored now that had expired by <paramref name="now"/>, with their newest versions.</summary>
    public List<(TKey Key, VersionNode<TValue> Node)> Due(long now)
    {
        var due = new List<(TKey, VersionNode<TValue>)>();
        var entries = Entries.Ascending(null);
        while (entries.MoveNext(out var entry) && entry.IndexKey.At <= now)
        {
            if (entry.Until == long.MaxValue && entry.Node is { } node)
            {
                due.Add((entry.Key, node));
            }
        }

        return due;
    }
}
