using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store;

/// <summary>
/// One stable version of a collection: <see cref="Get"/>, <see cref="Query"/> and <see cref="Count"/> all answer
/// as of the moment <see cref="Collection{TKey,TValue}.Snapshot"/> was called, while writes go on and the clock moves
/// (a record that expires after that moment stays visible in the snapshot). Dispose it
/// promptly: until then the store keeps in memory every version it can see that has been replaced since, and the
/// files of compacted shards it may read (see <see cref="CollectionStatistics.RetainedVersions"/>). A snapshot that
/// is never disposed is released by its finalizer once the garbage collector finds it unreachable, so a leak holds
/// old versions for as long as the snapshot stays reachable, and no longer.
/// </summary>
/// <remarks>
/// <para>Thread safety: any number of threads may read one snapshot concurrently; reads never lock.</para>
/// <para>After <see cref="Dispose"/>, and after the store is disposed, every member but <see cref="Dispose"/>
/// throws <see cref="ObjectDisposedException"/>, including a <see cref="Query"/> enumeration in progress at its
/// next element: the versions it read may be gone.</para>
/// </remarks>
public sealed class CollectionSnapshot<TKey, TValue> : IDisposable
    where TKey : notnull
{
    private readonly IStoreContext _store;
    private readonly VersionedMap<TKey, TValue> _map;
    private readonly Func<VersionNode<TValue>, TValue> _read;
    private readonly bool _copyOnRead;
    private readonly PublishedState _state;
    private int _disposed;

    internal CollectionSnapshot(IStoreContext store, VersionedMap<TKey, TValue> map, Func<VersionNode<TValue>, TValue> read, bool copyOnRead)
    {
        _store = store;
        _map = map;
        _read = read;
        _copyOnRead = copyOnRead;
        _state = map.Pin();
        Now = map.Clock.Observe();
    }

    /// <summary>A snapshot at <paramref name="pinned"/>, whose version the caller has pinned for it.</summary>
    internal CollectionSnapshot(IStoreContext store, VersionedMap<TKey, TValue> map, Func<VersionNode<TValue>, TValue> read, bool copyOnRead, PublishedState pinned, long now)
    {
        _store = store;
        _map = map;
        _read = read;
        _copyOnRead = copyOnRead;
        _state = pinned;
        Now = now;
    }

    /// <summary>Releases the pin of a snapshot nobody disposed, so that a leak does not hold old versions forever.</summary>
    ~CollectionSnapshot() => Release();

    /// <summary>The number of keys at this version, less the records that had expired when the snapshot was taken.</summary>
    public long Count
    {
        get
        {
            ThrowIfDisposed();
            return _map.CountAt(_state, Now);
        }
    }

    /// <summary>The version this snapshot reads at.</summary>
    internal long Version => _state.Version;

    /// <summary>The time the snapshot reads at (UTC ticks): a record that expires is seen until then, for as long as the snapshot is held.</summary>
    internal long Now { get; }

    /// <summary>
    /// <paramref name="index"/> read at this snapshot's version: its answers hold exactly the records that
    /// <see cref="Get"/> and <see cref="Query"/> read here. Throws <see cref="InvalidOperationException"/> when the
    /// index is not built yet (await <see cref="CollectionIndex{TIndexKey,TKey,TValue}.Ready"/>), was built after
    /// this snapshot was taken, or stopped being kept; <see cref="ArgumentException"/> when it indexes another collection.
    /// </summary>
    public IndexView<TIndexKey, TKey, TValue> Index<TIndexKey>(CollectionIndex<TIndexKey, TKey, TValue> index)
    {
        ArgumentNullException.ThrowIfNull(index);
        ThrowIfDisposed();
        if (!index.Collection.Holds(_map))
        {
            throw new ArgumentException($"Index '{index.Name}' belongs to collection '{index.Collection.Name}', not to this snapshot's collection.", nameof(index));
        }

        return new IndexView<TIndexKey, TKey, TValue>(index.Index, this);
    }

    /// <summary>The value of <paramref name="key"/> at this version, or default.</summary>
    public TValue? Get(TKey key) => TryGet(key, out var value) ? value : default;

    /// <summary>Reads <paramref name="key"/> at this version.</summary>
    public bool TryGet(TKey key, [MaybeNullWhen(false)] out TValue value)
    {
        ThrowIfDisposed();
        if (_map.TryGetAt(key, _state.Version, Now, out var node))
        {
            value = ReadStored(node);
            return true;
        }

        value = default;
        return false;
    }

    /// <summary>Reads <paramref name="key"/> at this version with its end (UTC ticks, 0: never), as a rollback restores it.</summary>
    internal bool TryGet(TKey key, [MaybeNullWhen(false)] out TValue value, out long expiresAt)
    {
        ThrowIfDisposed();
        if (_map.TryGetAt(key, _state.Version, Now, out var node))
        {
            value = ReadStored(node);
            expiresAt = node.ExpiresAt;
            return true;
        }

        value = default;
        expiresAt = 0;
        return false;
    }

    /// <summary>Every value at this version that matches <paramref name="predicate"/> (null: all), in no set order.</summary>
    public IEnumerable<TValue> Query(Func<TValue, bool>? predicate = null)
    {
        ThrowIfDisposed();
        return Scan(this, null, predicate);
    }

    /// <summary>
    /// <see cref="Query"/> on a snapshot of its own, taken by <paramref name="pin"/> when enumeration starts and released
    /// when it ends or its enumerator is disposed: <see cref="Collection{TKey,TValue}.Query"/> without a second
    /// iterator around the scan.
    /// </summary>
    internal static IEnumerable<TValue> QueryLatest(Func<CollectionSnapshot<TKey, TValue>> pin, Func<TValue, bool>? predicate) =>
        Scan(null, pin, predicate);

    /// <summary>Releases the version so the store can forget what only it needed. Idempotent; any thread.</summary>
    public void Dispose()
    {
        Release();
        GC.SuppressFinalize(this);
    }

    /// <summary>The values of <paramref name="shared"/>, or of a snapshot <paramref name="pin"/> takes at the first step and this releases.</summary>
    private static IEnumerable<TValue> Scan(CollectionSnapshot<TKey, TValue>? shared, Func<CollectionSnapshot<TKey, TValue>>? pin, Func<TValue, bool>? predicate)
    {
        Debug.Assert(shared is not null || pin is not null, "a scan reads a given snapshot or takes its own");
        var snapshot = shared ?? pin!();
        try
        {
            snapshot.ThrowIfDisposed();
            var version = snapshot._state.Version;
            var now = snapshot.Now;
            foreach (var (_, head) in snapshot._map.Heads)
            {
                if (VersionedMap<TKey, TValue>.VisibleAt(head, version, now) is not { } node)
                {
                    continue;
                }

                snapshot.ThrowIfDisposed();

                // The common case inline (the shared instance of a value in memory); copies and values on disk through Read.
                var value = node.InMemory && !snapshot._copyOnRead ? node.Value! : snapshot.ReadStored(node);
                if (predicate is null || predicate(value))
                {
                    yield return value;
                }
            }
        }
        finally
        {
            if (shared is null)
            {
                snapshot.Dispose();
            }
        }
    }

    /// <summary>The value of <paramref name="node"/>, a version this snapshot sees: shared, copied or read from disk as the store's options say.</summary>
    internal TValue Read(VersionNode<TValue> node)
    {
        ThrowIfDisposed();
        if (node.InMemory && !_copyOnRead)
        {
            return node.Value!;
        }

        return ReadStored(node);
    }

    private TValue ReadStored(VersionNode<TValue> node)
    {
        try
        {
            return _read(node);
        }
        catch (RetiredShardException e) when (IsDisposed)
        {
            // Only a released version's shard is ever retired: this snapshot was disposed during the read.
            throw new ObjectDisposedException(GetType().Name, e);
        }
    }

    private bool IsDisposed => Volatile.Read(ref _disposed) != 0 || _store.IsDisposed;

    /// <summary>Throws <see cref="ObjectDisposedException"/> once the snapshot or its store was disposed: what was read through it since may not hold.</summary>
    internal void ThrowIfDisposed()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        _store.ThrowIfDisposed();
    }

    private void Release()
    {
        // A finalizer may run on an instance whose constructor never finished.
        if (_state is not null && Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _map.Unpin(_state.Version);
        }
    }
}
