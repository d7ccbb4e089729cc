using System.Diagnostics;
using System.Runtime.CompilerServices;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// An ordered index with any number of keys per record (an item under each of its tags): an entry per record and
/// distinct key (see <see cref="OrderedIndex{TIndexKey,TKey,TValue}"/>). A write that keeps some of a record's keys keeps
/// their entries, and ends and adds only the ones that change.
/// </summary>
/// <remarks>Thread safety: as <see cref="OrderedIndex{TIndexKey,TKey,TValue}"/>.</remarks>
internal sealed class MultiKeyIndex<TIndexKey, TKey, TValue> : OrderedIndex<TIndexKey, TKey, TValue>
    where TKey : notnull
{
    private static readonly IndexEntry<TIndexKey, TKey, TValue>[] None = [];

    private readonly Func<TValue, IEnumerable<TIndexKey>?> _selector;

    /// <summary>Writer only: each record's current entries.</summary>
    private readonly Dictionary<TKey, IndexEntry<TIndexKey, TKey, TValue>[]> _current;

    public MultiKeyIndex(string collection, string name, Func<TValue, IEnumerable<TIndexKey>?> selector, IComparer<TIndexKey> indexKeys, IComparer<TKey> keys, IEqualityComparer<TKey>? keyEquality)
        : base(collection, name, indexKeys, keys)
    {
        _selector = selector;
        _current = new Dictionary<TKey, IndexEntry<TIndexKey, TKey, TValue>[]>(keyEquality);
    }

    public override bool Unique => false;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public override bool Build(IRecordHeads<TKey, TValue> map, long version, Func<VersionNode<TValue>, TValue> read, long now)
    {
        var entries = new List<IndexEntry<TIndexKey, TKey, TValue>>();
        try
        {
            var records = map.Scan();
            while (records.Next(out var key, out var head))
            {
                Debug.Assert(head.Version <= version, "an index is built while nothing unpublished is in the map");
                foreach (var indexKey in KeysOf(ValueOf(head, read)))
                {
                    entries.Add(NewEntry(indexKey, key, head.Version, head));
                }
            }
        }
        catch (Exception e)
        {
            Fail(BuildFailed(e));
            return false;
        }

        // One sort and one pass, instead of a search per entry: no reader sees the list before the build is done.
        entries.Sort(Order);
        Entries.Load(entries);
        foreach (var group in entries.GroupBy(n => n.Key, _current.Comparer))
        {
            _current[group.Key] = group.ToArray();
        }

        return true;
    }

    protected override void Apply(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node)
    {
        List<TIndexKey> keys;
        try
        {
            keys = deleted ? [] : KeysOf(value!);
        }
        catch (Exception e)
        {
            Fail(SelectorThrew(e));
            return;
        }

        var current = _current.GetValueOrDefault(key, None);
        var kept = new List<IndexEntry<TIndexKey, TKey, TValue>>(keys.Count);
        foreach (var entry in current)
        {
            var at = keys.FindIndex(k => Order.IndexKeys.Compare(k, entry.IndexKey) == 0);
            if (at < 0)
            {
                End(entry, version);
                continue;
            }

            // A key the record keeps: its entry stays, and leads to the new version.
            entry.Refer(node!);
            kept.Add(entry);
            keys.RemoveAt(at);
        }

        foreach (var indexKey in keys)
        {
            kept.Add(Entries.Add(NewEntry(indexKey, key, version, node!)));
        }

        if (kept.Count == 0)
        {
            _current.Remove(key);
        }
        else
        {
            _current[key] = kept.ToArray();
        }
    }

    /// <summary>The distinct keys of <paramref name="value"/> (none for a null sequence).</summary>
    private List<TIndexKey> KeysOf(TValue value)
    {
        var keys = new List<TIndexKey>();
        foreach (var indexKey in _selector(value) ?? [])
        {
            if (!keys.Exists(k => Order.IndexKeys.Compare(k, indexKey) == 0))
            {
                keys.Add(indexKey);
            }
        }

        return keys;
    }
}
