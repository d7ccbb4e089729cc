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

    /// <summary>Writer only: where each record's current entry is.</summary>
    private readonly Dictionary<TKey, EntryPlace<TIndexKey, TKey, TValue>> _current;

    public SecondaryIndex(string collection, string name, Func<TValue, TIndexKey> selector, bool unique, IComparer<TIndexKey> indexKeys, IComparer<TKey> keys, IEqualityComparer<TKey>? keyEquality)
        : base(collection, name, indexKeys, keys)
    {
        Unique = unique;
        _stagedKeyOf = new Dictionary<TKey, (bool Alive, TIndexKey IndexKey)>(keyEquality);
        _selector = selector;
        _current = new Dictionary<TKey, EntryPlace<TIndexKey, TKey, TValue>>(keyEquality);
    }

    /// <summary>Whether no two records may have the same index key (staging rejects a write that would break it).</summary>
    public override bool Unique { get; }

    public override bool Build(IEnumerable<KeyValuePair<TKey, VersionNode<TValue>>> heads, long version, Func<VersionNode<TValue>, TValue> read, long now)
    {
        var entries = new List<RunEntry<TIndexKey, TKey, TValue>>();
        try
        {
            foreach (var (key, head) in heads)
            {
                Debug.Assert(head.Version <= version, "an index is built while nothing unpublished is in the map");
                if (!head.Deleted)
                {
                    entries.Add(new(_selector(head.InMemory ? head.Value! : read(head)), key, head));
                }
            }
        }
        catch (Exception e)
        {
            Fail(SelectorThrew(e));
            return false;
        }

        // One sort into a run, instead of a search and a node per record: no reader sees the run before BuiltAt is set.
        var sorted = CollectionsMarshal.AsSpan(entries);
        sorted.Sort(new RunEntryOrder<TIndexKey, TKey, TValue>(Order));
        if (Unique && FirstDuplicate(sorted, now) is { } duplicate)
        {
            Fail(duplicate);
            return false;
        }

        var run = new SortedRun<TIndexKey, TKey, TValue>(entries.ToArray(), entries.Count);
        _current.EnsureCapacity(run.Count);
        for (var slot = 0; slot < run.Count; slot++)
        {
            _current[run.KeyAt(slot)] = new(slot, null);
        }

        Install(run);
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

        // One lookup for the record's place, whether it has an entry or not: this runs for every write.
        ref var current = ref CollectionsMarshal.GetValueRefOrAddDefault(_current, key, out var exists);
        if (exists)
        {
            if (Order.IndexKeys.Compare(current.IndexKey(Run), indexKey) == 0)
            {
                // Same index key: the entry stays, and leads to the new version, whose chain holds the older ones.
                if (current.Node is { } listed)
                {
                    listed.Item.Refer(node!);
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

    /// <summary>The entry at <paramref name="place"/> ends at <paramref name="version"/>.</summary>
    private void End(EntryPlace<TIndexKey, TKey, TValue> place, long version)
    {
        if (place.Node is { } listed)
        {
            End(listed, version);
        }
        else
        {
            EndSlot(place.Slot, version);
        }
    }
}
