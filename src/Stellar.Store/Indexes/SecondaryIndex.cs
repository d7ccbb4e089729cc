using System.Diagnostics;
using System.Runtime.InteropServices;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// An ordered index with one key per record (see <see cref="OrderedIndex{TIndexKey,TKey,TValue}"/>), optionally unique.
/// </summary>
/// <remarks>Thread safety: as <see cref="OrderedIndex{TIndexKey,TKey,TValue}"/>.</remarks>
internal sealed partial class SecondaryIndex<TIndexKey, TKey, TValue> : OrderedIndex<TIndexKey, TKey, TValue>
    where TKey : notnull
{
    private readonly Func<TValue, TIndexKey> _selector;

    /// <summary>Where the index keeps its order between a clean close and the next build; null: nowhere.</summary>
    private readonly IndexOrderFiles? _orders;

    /// <summary>Writer only: where each record's current entry is.</summary>
    private readonly Dictionary<TKey, EntryPlace<TIndexKey, TKey, TValue>> _current;

    public SecondaryIndex(string collection, string name, Func<TValue, TIndexKey> selector, bool unique, IComparer<TIndexKey> indexKeys, IComparer<TKey> keys, IEqualityComparer<TKey>? keyEquality, IndexOrderFiles? orders)
        : base(collection, name, indexKeys, keys)
    {
        _orders = orders;
        Unique = unique;
        _stagedKeyOf = new Dictionary<TKey, (bool Alive, TIndexKey IndexKey)>(keyEquality);
        _selector = selector;
        _current = new Dictionary<TKey, EntryPlace<TIndexKey, TKey, TValue>>(keyEquality);
    }

    /// <summary>Whether no two records may have the same index key (staging rejects a write that would break it).</summary>
    public override bool Unique { get; }

    /// <summary>Whether the build took its order from the one kept at the last clean close, rather than sorting.</summary>
    public bool BuiltFromSavedOrder { get; private set; }

    public override bool Build(IRecordHeads<TKey, TValue> map, long version, Func<VersionNode<TValue>, TValue> read, long now)
    {
        RunEntry<TIndexKey, TKey, TValue>[] entries;
        int count;
        try
        {
            // The order kept at the last clean close, when it is still this index's order of these records; else a sort.
            var saved = _orders?.Read<TKey>(Name, map.Published.Count) is { } order ? InOrder(order, map, read) : null;
            BuiltFromSavedOrder = saved is not null;
            (entries, count) = saved is not null ? (saved, saved.Length) : Sorted(map, version, read);
        }
        catch (Exception e)
        {
            Fail(SelectorThrew(e));
            return false;
        }

        if (Unique && FirstDuplicate(entries.AsSpan(0, count), now) is { } duplicate)
        {
            Fail(duplicate);
            return false;
        }

        var run = new SortedRun<TIndexKey, TKey, TValue>(entries, count);
        _current.EnsureCapacity(run.Count);
        for (var slot = 0; slot < run.Count; slot++)
        {
            _current[run.KeyAt(slot)] = new(slot, null);
        }

        Install(run);
        return true;
    }

    public override void SaveOrder(long version, long count)
    {
        if (_orders is not null && Failure is null && BuiltAt >= 0)
        {
            _orders.Write(Name, Ascending(null, version).Select(hit => hit.Key), count);
        }
    }

    public override void Applied(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node)
    {
        if (Failure is not null)
        {
            return;
        }

        TIndexKey indexKey = default!;
        if (!deleted)
        {
            try
            {
                indexKey = _selector(value!);
            }
            catch (Exception e)
            {
                Fail(SelectorThrew(e));
                return;
            }
        }

        if (deleted)
        {
            if (_current.Remove(key, out var removed))
            {
                End(removed, version);
            }

            return;
        }

        // One lookup for the record's place, whether it has an entry or not: this runs for every write.
        ref var current = ref CollectionsMarshal.GetValueRefOrAddDefault(_current, key, out var exists);
        if (exists)
        {
            if (Order.IndexKeys.Compare(current.IndexKey(Run), indexKey) == 0)
            {
                // Same index key: the entry stays, and leads to the new version, whose chain holds the older ones.
                if (current.Entry is { } listed)
                {
                    listed.Refer(node!);
                }
                else
                {
                    Run.Refer(current.Slot, node!);
                }

                return;
            }

            End(current, version);
        }

        current = new(0, Entries.Add(NewEntry(indexKey, key, version, node!)));
    }

    /// <summary>
    /// The entries of the stored records in <paramref name="order"/>, when it is exactly this index's order of them: every
    /// key names a stored record, and the index keys computed from the records rise strictly with the primary keys
    /// breaking ties (so no record is named twice, and <see cref="IndexOrderFiles.Read{TKey}"/> checked that the count is
    /// the number stored). Null otherwise: the file was stale, damaged, or of another key selector.
    /// </summary>
    private RunEntry<TIndexKey, TKey, TValue>[]? InOrder(TKey[] order, IRecordHeads<TKey, TValue> map, Func<VersionNode<TValue>, TValue> read)
    {
        var entries = new RunEntry<TIndexKey, TKey, TValue>[order.Length];
        var rising = new RunEntryOrder<TIndexKey, TKey, TValue>(Order);
        for (var i = 0; i < order.Length; i++)
        {
            if (map.Head(order[i]) is not { Deleted: false } head)
            {
                return null;
            }

            entries[i] = new(_selector(head.InMemory ? head.Value! : read(head)), order[i], head);
            if (i > 0 && rising.Compare(entries[i - 1], entries[i]) >= 0)
            {
                return null;
            }
        }

        return entries;
    }

    /// <summary>
    /// The entries of the stored records, sorted: one sort, instead of a search and a node per record. The array is sized
    /// by the count of stored records, so the run takes it without a copy (it grows only if the count were short).
    /// </summary>
    private (RunEntry<TIndexKey, TKey, TValue>[] Entries, int Count) Sorted(IRecordHeads<TKey, TValue> map, long version, Func<VersionNode<TValue>, TValue> read)
    {
        var entries = new RunEntry<TIndexKey, TKey, TValue>[map.Published.Count];
        var count = 0;
        foreach (var (key, head) in map.Heads)
        {
            Debug.Assert(head.Version <= version, "an index is built while nothing unpublished is in the map");
            if (!head.Deleted)
            {
                if (count == entries.Length)
                {
                    Array.Resize(ref entries, (2 * count) + 1);
                }

                entries[count++] = new(_selector(head.InMemory ? head.Value! : read(head)), key, head);
            }
        }

        Debug.Assert(count == map.Published.Count, "the published count is the number of stored records");
        entries.AsSpan(0, count).Sort(new RunEntryOrder<TIndexKey, TKey, TValue>(Order));
        return (entries, count);
    }

    /// <summary>The entry at <paramref name="place"/> ends at <paramref name="version"/>.</summary>
    private void End(EntryPlace<TIndexKey, TKey, TValue> place, long version)
    {
        if (place.Entry is { } listed)
        {
            End(listed, version);
        }
        else
        {
            EndSlot(place.Slot, version);
        }
    }
}
