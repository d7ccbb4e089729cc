using Stellar.Store.Indexes;
using Stellar.Store.Snapshots;

namespace Stellar.Store;

/// <summary>
/// An index read at one snapshot's version (<see cref="CollectionSnapshot{TKey,TValue}.Index{TIndexKey}"/>): every
/// answer holds exactly the records of that version, the same ones the snapshot's <c>Get</c> and <c>Query</c> read.
/// </summary>
/// <remarks>
/// Thread safety: any number of threads may read one view at once; reads never lock and never wait for a writer.
/// A view is as valid as its snapshot: once the snapshot is disposed, reads through it throw
/// <see cref="ObjectDisposedException"/>, an enumeration in progress at its next element or its end, and a read under
/// way on another thread at its end, rather than give an answer the disposal may have cut short.
/// </remarks>
/// <typeparam name="TIndexKey">The index key.</typeparam>
/// <typeparam name="TKey">The collection's key.</typeparam>
/// <typeparam name="TValue">The collection's values.</typeparam>
public sealed class IndexView<TIndexKey, TKey, TValue>
    where TKey : notnull
{
    private readonly OrderedIndex<TIndexKey, TKey, TValue> _index;
    private readonly CollectionSnapshot<TKey, TValue> _snapshot;
    private readonly long _version;
    private readonly long _now;

    internal IndexView(OrderedIndex<TIndexKey, TKey, TValue> index, CollectionSnapshot<TKey, TValue> snapshot)
    {
        _index = index;
        _snapshot = snapshot;
        _version = snapshot.Version;
        _now = snapshot.Now;
        if (index.Failure is { } failure)
        {
            // A new exception per read: the stored one is shared by every thread that reads the index.
            throw new InvalidOperationException(failure.Message, failure.InnerException ?? failure);
        }

        var builtAt = index.BuiltAt;
        if (builtAt < 0)
        {
            throw new InvalidOperationException($"Index '{index.Name}' is still being built: await its Ready task before reading it.");
        }

        if (_version < builtAt)
        {
            throw new InvalidOperationException($"Index '{index.Name}' was built after this snapshot was taken, so it cannot answer at the snapshot's version: take a new snapshot.");
        }
    }

    /// <summary>The records whose index key is between <paramref name="from"/> and <paramref name="to"/>, both included, lowest index key first.</summary>
    public IEnumerable<TValue> Range(TIndexKey from, TIndexKey to) =>
        Ascending(IndexEntry<TIndexKey, TKey, TValue>.Before(from), key => _index.Order.IndexKeys.Compare(key, to) <= 0);

    /// <summary>
    /// At most <paramref name="limit"/> records of <see cref="Range"/>(<paramref name="from"/>, <paramref name="to"/>),
    /// starting after <paramref name="after"/> (from the start of the range when null), with where the next page starts.
    /// </summary>
    public IndexPage<TIndexKey, TKey, TValue> Page(TIndexKey from, TIndexKey to, int limit, IndexContinuation<TIndexKey, TKey>? after = null)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(limit);
        var order = _index.Order;
        var start = IndexEntry<TIndexKey, TKey, TValue>.Before(from);
        if (after is not null && order.IndexKeys.Compare(after.IndexKey, from) >= 0)
        {
            // After every version of the continuation's record: its entries differ only in the version they start at.
            start = IndexEntry<TIndexKey, TKey, TValue>.AfterRecord(after.IndexKey, after.Key);
        }

        var items = new List<TValue>(Math.Min(limit, 1024));
        IndexHit<TIndexKey, TKey, TValue> last = default;
        foreach (var hit in _index.Ascending(start, _version))
        {
            if (order.IndexKeys.Compare(hit.IndexKey, to) > 0)
            {
                break;
            }

            if (!TryRead(hit, out var value))
            {
                continue;
            }

            if (items.Count == limit)
            {
                // One more exists: the page is full and the range goes on.
                _snapshot.ThrowIfDisposed();
                return new IndexPage<TIndexKey, TKey, TValue>(items, new IndexContinuation<TIndexKey, TKey>(last.IndexKey, last.Key));
            }

            items.Add(value);
            last = hit;
        }

        _snapshot.ThrowIfDisposed();
        return new IndexPage<TIndexKey, TKey, TValue>(items, null);
    }

    /// <summary>The records whose index key is <paramref name="key"/>, in primary key order.</summary>
    public IEnumerable<TValue> Equal(TIndexKey key) => Range(key, key);

    /// <summary>Every record, lowest index key first.</summary>
    public IEnumerable<TValue> All() => Ascending(null, static _ => true);

    /// <summary>The <paramref name="count"/> records with the highest index keys, highest first (ties in descending primary key order).</summary>
    public IReadOnlyList<TValue> Top(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        var top = new List<TValue>(Math.Min(count, 1024));
        var cursor = IndexCursor<TIndexKey, TKey, TValue>.Descending(_index, _version);
        while (top.Count < count && cursor.MoveNext(out var hit))
        {
            if (TryRead(hit, out var value))
            {
                top.Add(value);
            }
        }

        _snapshot.ThrowIfDisposed();
        return top;
    }

    /// <summary>The <paramref name="count"/> records with the lowest index keys, lowest first.</summary>
    public IReadOnlyList<TValue> Bottom(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        return All().Take(count).ToList();
    }

    /// <summary>For string index keys: the records whose index key starts with <paramref name="prefix"/> (ordinal), in index order.</summary>
    internal IEnumerable<TValue> Prefix(string prefix)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        var from = (TIndexKey)(object)prefix;
        return Ascending(IndexEntry<TIndexKey, TKey, TValue>.Before(from), key => key is string s && s.StartsWith(prefix, StringComparison.Ordinal));
    }

    /// <summary>The records of the visible entries from <paramref name="start"/> (the first entry when null) while <paramref name="within"/> holds.</summary>
    private IEnumerable<TValue> Ascending(IndexEntry<TIndexKey, TKey, TValue>? start, Func<TIndexKey, bool> within)
    {
        foreach (var hit in _index.Ascending(start, _version))
        {
            if (!within(hit.IndexKey))
            {
                break;
            }

            if (TryRead(hit, out var value))
            {
                yield return value;

                // Resumed: the walk reads on only while the snapshot's pin holds.
                _snapshot.ThrowIfDisposed();
            }
        }

        _snapshot.ThrowIfDisposed();
    }

    /// <summary>The record of <paramref name="hit"/> at the view's version, unless it had expired by the view's time.</summary>
    private bool TryRead(IndexHit<TIndexKey, TKey, TValue> hit, out TValue value)
    {
        // A visible entry leads to the record's version at the view's version through the chain of its node.
        if (VersionedMap<TKey, TValue>.VisibleAt(hit.Node, _version, _now) is { } node)
        {
            value = _snapshot.Read(node);
            return true;
        }

        value = default!;
        return false;
    }
}
