using System.Diagnostics;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// An ordered index of a collection: an entry per record and index key, in a <see cref="SkipList{T}"/> that readers
/// walk without locks. The writer keeps it as it applies each version, so that an entry carries the versions it is
/// visible at and a reader at a snapshot's version keeps exactly the entries of that version's records.
/// </summary>
/// <remarks>
/// <para>Entries of replaced versions stay in the list while a pinned snapshot may read them, and go when the
/// collection's horizon passes the version that ended them (<see cref="Trim"/>), as replaced versions of records do.</para>
/// <para>Thread safety: <see cref="Build"/>, <see cref="Applied"/> and <see cref="Trim"/> are the collection writer's
/// (one thread at a time); the read members are for any thread, without locks.</para>
/// </remarks>
internal sealed partial class SecondaryIndex<TIndexKey, TKey, TValue> : IIndexMaintainer<TKey, TValue>
    where TKey : notnull
{
    private readonly Func<TValue, TIndexKey> _selector;

    /// <summary>Writer only: each record's current entry, by its node in the list.</summary>
    private readonly Dictionary<TKey, SkipList<IndexEntry<TIndexKey, TKey, TValue>>.Node> _current;

    /// <summary>Writer only: the nodes of entries that ended, in the order of the versions that ended them.</summary>
    private readonly Queue<SkipList<IndexEntry<TIndexKey, TKey, TValue>>.Node> _ended = new();

    private long _builtAt = -1;
    private Exception? _failure;

    public SecondaryIndex(string collection, string name, Func<TValue, TIndexKey> selector, bool unique, IComparer<TIndexKey> indexKeys, IComparer<TKey> keys, IEqualityComparer<TKey>? keyEquality)
    {
        _collection = collection;
        Name = name;
        Unique = unique;
        _stagedKeyOf = new Dictionary<TKey, (bool Alive, TIndexKey IndexKey)>(keyEquality);
        _selector = selector;
        _current = new Dictionary<TKey, SkipList<IndexEntry<TIndexKey, TKey, TValue>>.Node>(keyEquality);
        Order = new IndexEntryComparer<TIndexKey, TKey, TValue>(indexKeys, keys);
        Entries = new SkipList<IndexEntry<TIndexKey, TKey, TValue>>(Order);
    }

    public string Name { get; }

    /// <summary>Whether no two records may have the same index key (staging rejects a write that would break it).</summary>
    public bool Unique { get; }

    /// <summary>The entries, in index order; a reader keeps those visible at its version.</summary>
    public SkipList<IndexEntry<TIndexKey, TKey, TValue>> Entries { get; }

    public IndexEntryComparer<TIndexKey, TKey, TValue> Order { get; }

    /// <summary>The version the index was built at (-1 until then): it answers for snapshots at this version or later.</summary>
    public long BuiltAt => Volatile.Read(ref _builtAt);

    /// <summary>Why the index stopped being kept (its key selector threw), or null.</summary>
    public Exception? Failure => Volatile.Read(ref _failure);

    public bool Build(IEnumerable<KeyValuePair<TKey, VersionNode<TValue>>> heads, long version, Func<VersionNode<TValue>, TValue> read)
    {
        var entries = new List<IndexEntry<TIndexKey, TKey, TValue>>();
        try
        {
            foreach (var (key, head) in heads)
            {
                Debug.Assert(head.Version <= version, "an index is built while nothing unpublished is in the map");
                if (!head.Deleted)
                {
                    entries.Add(new IndexEntry<TIndexKey, TKey, TValue>(_selector(head.InMemory ? head.Value! : read(head)), key, head.Version, head));
                }
            }
        }
        catch (Exception e)
        {
            Fail(e);
            return false;
        }

        // One sort and one pass, instead of a search per record: no reader sees the list before BuiltAt is set.
        entries.Sort(Order);
        if (Unique && FirstDuplicate(entries) is { } duplicate)
        {
            Volatile.Write(ref _failure, duplicate);
            return false;
        }

        var nodes = Entries.Load(entries);
        _current.EnsureCapacity(nodes.Length);
        foreach (var node in nodes)
        {
            _current[node.Item.Key] = node;
        }

        Volatile.Write(ref _builtAt, version);
        return true;
    }

    public void Applied(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node)
    {
        if (_failure is not null)
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
                Fail(e);
                return;
            }
        }

        if (_current.TryGetValue(key, out var current))
        {
            if (!deleted && Order.IndexKeys.Compare(current.Item.IndexKey, indexKey) == 0)
            {
                // Same index key: the entry stays, and leads to the new version, whose chain holds the older ones.
                current.Item.Refer(node!);
                return;
            }

            current.Item.End(version);
            _ended.Enqueue(current);
            _current.Remove(key);
        }

        if (!deleted)
        {
            Add(key, indexKey, version, node!);
        }
    }

    public void Trim(long horizon)
    {
        while (_ended.TryPeek(out var ended) && ended.Item.Until <= horizon)
        {
            _ended.Dequeue();
            Entries.Remove(ended);
        }
    }

    /// <summary>
    /// Any thread: the index is dropped. Reads already under way answer at their versions; new ones are refused, since
    /// the writes from now on are not kept in it.
    /// </summary>
    public void MarkDropped() => Volatile.Write(ref _failure, new InvalidOperationException($"Index '{Name}' was dropped."));

    private void Add(TKey key, TIndexKey indexKey, long version, VersionNode<TValue> node)
    {
        _current[key] = Entries.Add(new IndexEntry<TIndexKey, TKey, TValue>(indexKey, key, version, node));
    }

    private void Fail(Exception cause) => Volatile.Write(
        ref _failure,
        new InvalidOperationException($"Index '{Name}' is not kept any more: its key selector threw ({cause.Message}). Fix the selector and declare the index again after reopening the store.", cause));
}
