using Stellar.Store.Actors;
using Stellar.Store.Snapshots;

namespace Stellar.Store;

/// <summary>
/// One consistent cut across every collection of a store that was open when <see cref="StellarStore.Snapshot"/> was
/// called: <see cref="Of{TKey,TValue}"/> reads a collection as of that cut, and a write across collections
/// (<see cref="StellarStore.WriteAsync"/>) is in it in every collection or in none. Every write whose task completed
/// before the call is in it. Dispose it promptly: until then the store keeps the versions it can see.
/// </summary>
/// <remarks>
/// <para>Thread safety: any number of threads may read one snapshot concurrently; taking one never locks and never
/// waits for a writer (it reads again when a write was being published meanwhile).</para>
/// <para>Disposing it disposes the collection snapshots <see cref="Of{TKey,TValue}"/> gave; a snapshot nobody disposed
/// is released by its finalizer once it is unreachable.</para>
/// </remarks>
public sealed class StoreSnapshot : IDisposable
{
    private readonly IStoreContext _store;
    private readonly Dictionary<IPinnable, PublishedState> _pinned;
    private readonly List<IDisposable> _given = new();

    /// <summary>The time every collection of the cut reads at (UTC ticks), so that records expire in all of them at once.</summary>
    private readonly long _now;
    private int _disposed;

    private StoreSnapshot(IStoreContext store, Dictionary<IPinnable, PublishedState> pinned)
    {
        _store = store;
        _pinned = pinned;
        _now = store.Clock.Observe();
    }

    /// <summary>Releases the pins of a snapshot nobody disposed.</summary>
    ~StoreSnapshot() => Release();

    /// <summary>
    /// <paramref name="collection"/> as of this snapshot: a snapshot of it, disposed with this one (disposing it earlier
    /// is allowed).
    /// </summary>
    /// <exception cref="ArgumentException">The collection belongs to another store.</exception>
    /// <exception cref="InvalidOperationException">The collection was first opened after this snapshot was taken.</exception>
    public CollectionSnapshot<TKey, TValue> Of<TKey, TValue>(Collection<TKey, TValue> collection)
        where TKey : notnull
    {
        ArgumentNullException.ThrowIfNull(collection);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        _store.ThrowIfDisposed();
        if (!collection.BelongsTo(_store))
        {
            throw new ArgumentException($"Collection '{collection.Name}' belongs to another store.", nameof(collection));
        }

        if (!_pinned.TryGetValue(collection.Engine.Map, out var state))
        {
            throw new InvalidOperationException($"Collection '{collection.Name}' was first opened after this snapshot was taken; it is not part of it.");
        }

        var snapshot = collection.SnapshotAt(state, _now);
        lock (_given)
        {
            _given.Add(snapshot);
        }

        return snapshot;
    }

    /// <summary>Releases the cut, and every collection snapshot taken from it. Idempotent; any thread.</summary>
    public void Dispose()
    {
        Release();
        GC.SuppressFinalize(this);
    }

    /// <summary>
    /// Pins a consistent cut of <paramref name="maps"/>. A collection whose newest version is a round's part while the
    /// round is not visible everywhere yet is read just below the part; since rounds become visible in order, and a
    /// writer that published a part publishes nothing else until its round is visible, the cut holds every round up
    /// to the visible one whole and nothing of the next. When a round becomes visible, or a map publishes, while the
    /// cut is taken, it is taken again.
    /// </summary>
    internal static StoreSnapshot Take(IStoreContext store, IReadOnlyList<IPinnable> maps, RoundClock clock)
    {
        var states = new PublishedState[maps.Count];
        while (true)
        {
            var visible = clock.Visible;
            for (var i = 0; i < maps.Count; i++)
            {
                states[i] = maps[i].Published;
            }

            if (clock.Visible != visible)
            {
                continue;
            }

            var pinned = new Dictionary<IPinnable, PublishedState>(maps.Count, ReferenceEqualityComparer.Instance);
            var complete = true;
            for (var i = 0; i < maps.Count && complete; i++)
            {
                var state = states[i];
                var at = state.PartRound > visible ? new PublishedState(state.Version - 1, state.CountBeforePart) : state;
                complete = maps[i].TryPinAt(at.Version, state);
                if (complete)
                {
                    pinned[maps[i]] = at;
                }
            }

            if (complete)
            {
                return new StoreSnapshot(store, pinned);
            }

            foreach (var (map, at) in pinned)
            {
                map.Unpin(at.Version);
            }
        }
    }

    private void Release()
    {
        // A finalizer may run on an instance whose constructor never finished.
        if (_pinned is null || Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        if (_given is not null)
        {
            lock (_given)
            {
                _given.ForEach(s => s.Dispose());
            }
        }

        foreach (var (map, at) in _pinned)
        {
            map.Unpin(at.Version);
        }
    }
}
