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

    /// <summary>Writer only: each record's current entry, by its node in the list.</summary>
    private readonly Dictionary<TKey, SkipList<IndexEntry<TIndexKey, TKey, TValue>>.Node> _current;

    public SecondaryIndex(string collection, string name, Func<TValue, TIndexKey> selector, bool unique, IComparer<TIndexKey> indexKeys, IComparer<TKey> keys, IEqualityComparer<TKey>? keyEquality)
        : base(collection, name, indexKeys, keys)
    {
        Unique = unique;
        _stagedKeyOf = new Dictionary<TKey, (bool Alive, TIndexKey IndexKey)>(keyEquality);
        _selector = selector;
        _current = new Dictionary<TKey, SkipList<IndexEntry<TIndexKey, TKey, TValue>>.Node>(keyEquality);
    }

    /// <summary>Whether no two records may have the same index key (staging rejects a write that would break it).</summary>
    public override bool Unique { get; }

    public override bool Build(IEnumerable<KeyValuePair<TKey, VersionNode<TValue>>> heads, long version, Func<VersionNode<TValue>, TValue> read, long now)
    {
        var entries = new List<IndexEntry<TIndexKey, TKey, TValue>>();
        try
        {
            foreach (var (key, head) in heads)
            {
                Debug.Assert(head.Version <= version, "an index is built while nothing unpublished is in the map");
                if (!head.Deleted)
                {
                    entries.Add(NewEntry(_selector(head.InMemory ? head.Value! : read(head)), key, head.Version, head));
                }
            }
        }
        catch (Exception e)
        {
            Fail(SelectorThrew(e));
            return false;
        }

        // One sort and one pass, instead of a search per record: no reader sees the list before BuiltAt is set.
        entries.Sort(Order);
        if (Unique && FirstDuplicate(entries, now) is { } duplicate)
        {
            Fail(duplicate);
            return false;
        }

        var nodes = Entries.Load(entries);
        _current.EnsureCapacity(nodes.Length);
        foreach (var node in nodes)
        {
            _current[node.Item.Key] = node;
        }

        Built(version);
        return true;
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

        // One lookup for the record's slot, whether it has an entry or not: this runs for every write.
        ref var current = ref CollectionsMarshal.GetValueRefOrAddDefault(_current, key, out var exists);
        if (exists)
        {
            if (Order.IndexKeys.Compare(current!.Item.IndexKey, indexKey) == 0)
            {
                // Same index key: the entry stays, and leads to the new version, whose chain holds the older ones.
                current.Item.Refer(node!);
                return;
            }

            End(current, version);
        }

        current = Entries.Add(NewEntry(indexKey, key, version, node!));
    }
}
