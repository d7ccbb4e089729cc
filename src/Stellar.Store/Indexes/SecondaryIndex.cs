using System.Diagnostics;
using System.Runtime.CompilerServices;
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

    /// <summary>Writer only: the current entry of each record whose entry is in the list (made since the build).</summary>
    private readonly Dictionary<TKey, IndexEntry<TIndexKey, TKey, TValue>> _listed;

    private readonly IEqualityComparer<TKey>? _keyEquality;

    /// <summary>
    /// Writer only: the slot of each record's entry in the run, which is its current entry while it has not ended. A build
    /// leaves it to be filled on a thread of the pool once the run is built, since only a write needs it: the writer's
    /// first write after the build waits for it (or fills it, if the pool has not begun).
    /// </summary>
    private Lazy<RunSlots<TIndexKey, TKey, TValue>> _slots;

    public SecondaryIndex(string collection, string name, Func<TValue, TIndexKey> selector, bool unique, IComparer<TIndexKey> indexKeys, IComparer<TKey> keys, IEqualityComparer<TKey>? keyEquality, IndexOrderFiles? orders)
        : base(collection, name, indexKeys, keys)
    {
        _orders = orders;
        Unique = unique;
        _stagedKeyOf = new Dictionary<TKey, (bool Alive, TIndexKey IndexKey)>(keyEquality);
#pragma warning disable CS8714 // Null index keys are kept out (see Stage).
        _stagedHolder = new SortedDictionary<TIndexKey, (TKey Key, int Position)>(indexKeys);
#pragma warning restore CS8714
        _selector = selector;
        _keyEquality = keyEquality;
        _listed = new Dictionary<TKey, IndexEntry<TIndexKey, TKey, TValue>>(keyEquality);
        _slots = new(new RunSlots<TIndexKey, TKey, TValue>([], 0, keyEquality));
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
            // An index key that maps to a number sorts faster than the kept order is checked against the records: it
            // keeps none. Any other takes the order kept at the last clean close, when it is still this index's order
            // of these records; else a sort.
            var saved = RadixKey<TIndexKey>.Supported ? null : FromSavedOrder(map, read);
            BuiltFromSavedOrder = saved is not null;
            (entries, count) = saved is not null ? (saved, saved.Length) : Sorted(map, version, read);
        }
        catch (Exception e)
        {
            Fail(BuildFailed(e));
            return false;
        }

        if (Unique && FirstDuplicate(entries.AsSpan(0, count), now) is { } duplicate)
        {
            Fail(duplicate);
            return false;
        }

        var slots = new Lazy<RunSlots<TIndexKey, TKey, TValue>>(
            () => new RunSlots<TIndexKey, TKey, TValue>(entries, count, _keyEquality),
            LazyThreadSafetyMode.ExecutionAndPublication);
        _slots = slots;
        Install(new SortedRun<TIndexKey, TKey, TValue>(entries, count));
        ThreadPool.UnsafeQueueUserWorkItem(Fill, slots, preferLocal: false);
        return true;
    }

    /// <summary>
    /// On the thread pool: fills a build's slot table before the writer needs it. A failure (out of memory, say) must not
    /// end the process, as an exception out of a work item would, and is not lost: the table keeps it, and the writer
    /// meets it when it asks.
    /// </summary>
    private static void Fill(Lazy<RunSlots<TIndexKey, TKey, TValue>> slots)
    {
        try
        {
            _ = slots.Value;
        }
        catch (Exception)
        {
        }
    }

    public override void SaveOrder(long version, long count)
    {
        if (_orders is not null && !RadixKey<TIndexKey>.Supported && Failure is null && BuiltAt >= 0)
        {
            _orders.Write(Name, Ascending(null, version).Select(hit => hit.Key), count);
        }
    }

    protected override void Apply(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node)
    {
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
            if (_listed.Remove(key, out var removed))
            {
                End(removed, version);
            }
            else if (LiveSlot(key) is var ended and >= 0)
            {
                EndSlot(ended, version);
            }

            return;
        }

        // One lookup for a record whose entry is in the list, the most written records.
        ref var listed = ref CollectionsMarshal.GetValueRefOrNullRef(_listed, key);
        if (!Unsafe.IsNullRef(ref listed))
        {
            if (Order.IndexKeys.Compare(listed.IndexKey, indexKey) == 0)
            {
                // Same index key: the entry stays, and leads to the new version, whose chain holds the older ones.
                listed.Refer(node!);
                return;
            }

            End(listed, version);
            listed = Entries.Add(NewEntry(indexKey, key, version, node!));
            return;
        }

        if (LiveSlot(key) is var slot and >= 0)
        {
            if (Order.IndexKeys.Compare(Run.IndexKeyAt(slot), indexKey) == 0)
            {
                Run.Refer(slot, node!);
                return;
            }

            EndSlot(slot, version);
        }

        _listed.Add(key, Entries.Add(NewEntry(indexKey, key, version, node!)));
    }

    /// <summary>Writer only: the slot of the run that holds record <paramref name="key"/>'s current entry, or -1.</summary>
    private int LiveSlot(TKey key) => _slots.Value.Find(key) is var slot and >= 0 && Run.UntilAt(slot) == long.MaxValue ? slot : -1;

    /// <summary>
    /// The entries of the stored records in the order the index's order file lists their primary keys, when it is
    /// exactly this index's order of them: every key names a stored record, and the index keys computed from the records
    /// rise strictly with the primary keys breaking ties (so no record is named twice, and
    /// <see cref="IndexOrderFiles.Read{TKey}"/> checked that the count is the number stored). Null otherwise: no file,
    /// or a stale or damaged one, or one of another key selector.
    /// </summary>
    /// <remarks>
    /// The records are read in index order, which is random in memory. So they are read in batches, each in passes
    /// that are short loops (the heads, then the values, then the index keys), so that the cache misses of a batch
    /// overlap instead of following one another.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private RunEntry<TIndexKey, TKey, TValue>[]? FromSavedOrder(IRecordHeads<TKey, TValue> map, Func<VersionNode<TValue>, TValue> read)
    {
        if (_orders?.Read<TKey>(Name, map.Published.Count) is not { } order)
        {
            return null;
        }

        const int Batch = 64;
        var entries = new RunEntry<TIndexKey, TKey, TValue>[order.Count];
        var rising = new RunEntryOrder<TIndexKey, TKey, TValue>(Order);
        var keys = new TKey[Batch];
        var heads = new VersionNode<TValue>?[Batch];
        var values = new TValue[Batch];
        if (entries.Length == 0)
        {
            // No batch reads the file to its end: it must end after its header.
            return order.TryRead([]) ? entries : null;
        }

        for (var start = 0; start < entries.Length; start += Batch)
        {
            var count = Math.Min(Batch, entries.Length - start);
            if (!order.TryRead(keys.AsSpan(0, count)))
            {
                return null;
            }

            map.HeadsOf(keys.AsSpan(0, count), heads.AsSpan(0, count));
            for (var i = 0; i < count; i++)
            {
                if (heads[i] is not { } head)
                {
                    return null;
                }

                values[i] = ValueOf(head, read);
            }

            for (var i = 0; i < count; i++)
            {
                var slot = start + i;
                entries[slot] = new(_selector(values[i]), keys[i], heads[i]!);
                if (slot > 0 && rising.Compare(entries[slot - 1], entries[slot]) >= 0)
                {
                    return null;
                }
            }
        }

        return entries;
    }

    /// <summary>
    /// The entries of the stored records, sorted: one sort, instead of a search and a node per record. The array is sized
    /// by the count of stored records, so the run takes it without a copy (it grows only if the count were short). An
    /// index key that maps to a number (<see cref="RadixKey{T}"/>) is sorted by its bits, and only the records that share
    /// one are sorted by comparisons, of their primary keys.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private (RunEntry<TIndexKey, TKey, TValue>[] Entries, int Count) Sorted(IRecordHeads<TKey, TValue> map, long version, Func<VersionNode<TValue>, TValue> read)
    {
        var entries = new RunEntry<TIndexKey, TKey, TValue>[map.Published.Count];
        var count = 0;
        var records = map.Scan();
        while (records.Next(out var key, out var head))
        {
            Debug.Assert(head.Version <= version, "an index is built while nothing unpublished is in the map");
            if (count == entries.Length)
            {
                Array.Resize(ref entries, (2 * count) + 1);
            }

            entries[count++] = new(_selector(ValueOf(head, read)), key, head);
        }

        Debug.Assert(count == map.Published.Count, "the published count is the number of stored records");
        var order = new RunEntryOrder<TIndexKey, TKey, TValue>(Order);
        if (!RadixKey<TIndexKey>.Supported)
        {
            entries.AsSpan(0, count).Sort(order);
            return (entries, count);
        }

        RadixSort.Sort(entries.AsSpan(0, count), default(RunEntryNumbers<TIndexKey, TKey, TValue>));

        // Records that share an index key are in no particular order: each group is sorted by primary key, a small one
        // (most, for a key like a score) by insertion, without the call of a sort.
        for (var start = 0; start < count;)
        {
            var number = RadixKey<TIndexKey>.Of(entries[start].IndexKey);
            var end = start + 1;
            while (end < count && RadixKey<TIndexKey>.Of(entries[end].IndexKey) == number)
            {
                end++;
            }

            if (end - start > 8)
            {
                entries.AsSpan(start, end - start).Sort(order);
            }
            else
            {
                for (var i = start + 1; i < end; i++)
                {
                    var moving = entries[i];
                    var at = i - 1;
                    while (at >= start && order.Compare(entries[at], moving) > 0)
                    {
                        entries[at + 1] = entries[at];
                        at--;
                    }

                    entries[at + 1] = moving;
                }
            }

            start = end;
        }

        return (entries, count);
    }
}
