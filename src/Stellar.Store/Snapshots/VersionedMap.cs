using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;

namespace Stellar.Store.Snapshots;

/// <summary>
/// The in-memory state of one collection: a version chain per key in a <see cref="ConcurrentDictionary{TKey,TValue}"/>,
/// and a published commit version that readers read once.
/// </summary>
/// <remarks>
/// <para>Why this shape: a point read is one dictionary lookup plus a version check on the chain's head, which
/// keeps it close to a plain <see cref="ConcurrentDictionary{TKey,TValue}"/> read, and publishing a commit never
/// copies the collection: the writer pushes new heads stamped with the next version, then publishes that version
/// with one volatile write. A reader at version <c>v</c> skips heads newer than <c>v</c>, so it never sees half a
/// commit.</para>
/// <para>Thread safety: exactly one writer thread at a time calls <see cref="Apply"/> and <see cref="Publish"/>
/// (the collection's writer), and only it ever cuts a chain (before the first publish, the loader's threads may call
/// <see cref="Load"/>, each for its own keys); any number of threads call the rest concurrently.
/// Readers never lock: <see cref="ConcurrentDictionary{TKey,TValue}.TryGetValue"/> is lock-free.</para>
/// <para>Old versions are kept only while a pinned snapshot may need them. Each node that replaces a version is
/// queued at <see cref="Apply"/>; at every <see cref="Publish"/> the writer cuts the chain below each queued node
/// that no pin is older than (marking the cut with <see cref="VersionNode{TValue}.Trimmed"/>), so with no snapshot
/// open a replaced version is garbage as soon as its successor is published. An unpinned reader that reaches a cut
/// retries at the newest version. When the oldest pin goes, <see cref="Unpin"/> raises <see cref="Released"/> so
/// that the writer publishes again and cuts what that pin held, even if no write follows.</para>
/// </remarks>
internal sealed class VersionedMap<TKey, TValue>
    where TKey : notnull
{
    /// <summary>
    /// Locks of a presized map: a presized dictionary keeps the lock count it starts with, and the loader's threads
    /// insert at once, so with one lock per core they would queue on each other's locks at almost every insert.
    /// </summary>
    private const int LoadLocks = 64;

    private readonly ConcurrentDictionary<TKey, VersionNode<TValue>> _chains;
    private readonly ConcurrentDictionary<long, int> _pins = new();
    private readonly Queue<(TKey Key, long Version)> _tombstones = new();

    /// <summary>Writer only: nodes that replaced a version, oldest first, whose chain is not cut below them yet.</summary>
    private readonly Queue<VersionNode<TValue>> _replacing = new();
    private PublishedState _published = new(0, 0);
    private long _horizon;
    private int _retained;
    private int _releaseSignalled;

    /// <param name="comparer">Compares keys; null for the default.</param>
    /// <param name="capacity">
    /// Keys to make room for up front (0: grow from empty): a load that knows roughly how many keys it brings spares
    /// the dictionary its resizes, each of which copies every entry.
    /// </param>
    public VersionedMap(IEqualityComparer<TKey>? comparer = null, int capacity = 0)
    {
        _chains = capacity > 0
            ? new ConcurrentDictionary<TKey, VersionNode<TValue>>(LoadLocks, capacity, comparer)
            : new ConcurrentDictionary<TKey, VersionNode<TValue>>(comparer);
    }

    /// <summary>The newest published version and the live key count at it.</summary>
    public PublishedState Published => Volatile.Read(ref _published);

    /// <summary>The number of keys in the dictionary, tombstones included (for diagnostics).</summary>
    public int ChainCount => _chains.Count;

    /// <summary>
    /// Versions kept only because an open snapshot may read them, as of the newest publish: replaced values and
    /// deletion markers whose cut waits for an older pin to go.
    /// </summary>
    public int RetainedVersions => Volatile.Read(ref _retained);

    /// <summary>Pins held now: open snapshots, enumerations of a query in progress, a running compaction.</summary>
    public int PinCount
    {
        get
        {
            var count = 0;
            foreach (var (_, n) in _pins)
            {
                count += n;
            }

            return count;
        }
    }

    /// <summary>
    /// Raised on the thread that releases the oldest pin while newer versions exist, at most once until the next
    /// <see cref="Publish"/>: the writer should publish again so that it cuts what the pin held. Must not block.
    /// </summary>
    public Action? Released { get; set; }

    /// <summary>Reads the newest published value of <paramref name="key"/>.</summary>
    public bool TryGetLatest(TKey key, [MaybeNullWhen(false)] out VersionNode<TValue> node)
    {
        while (true)
        {
            var version = Volatile.Read(ref _published).Version;
            var found = TryFind(key, version, out node, out var cut);
            if (!cut)
            {
                return found;
            }
        }
    }

    /// <summary>Reads <paramref name="key"/> as of a pinned <paramref name="version"/>.</summary>
    public bool TryGetAt(TKey key, long version, [MaybeNullWhen(false)] out VersionNode<TValue> node)
    {
        // A pinned version is never cut, so the walk always ends on an answer.
        return TryFind(key, version, out node, out _);
    }

    /// <summary>Whether a snapshot older than <paramref name="version"/> is still pinned.</summary>
    public bool IsPinnedBelow(long version)
    {
        foreach (var (pinned, _) in _pins)
        {
            if (pinned < version)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The head node of <paramref name="key"/>, including unpublished ones; for the writer only.</summary>
    public VersionNode<TValue>? Head(TKey key) => _chains.TryGetValue(key, out var head) ? head : null;

    /// <summary>Enumerates every key alive at <paramref name="version"/>, which the caller has pinned.</summary>
    public IEnumerable<KeyValuePair<TKey, VersionNode<TValue>>> EnumerateAt(long version)
    {
        foreach (var (key, _) in _chains)
        {
            if (TryFind(key, version, out var node, out _))
            {
                yield return new KeyValuePair<TKey, VersionNode<TValue>>(key, node);
            }
        }
    }

    /// <summary>
    /// Pins the newest published version so that its versions stay readable until <see cref="Unpin"/>.
    /// Returns the pinned state.
    /// </summary>
    public PublishedState Pin()
    {
        while (true)
        {
            var state = Volatile.Read(ref _published);
            _pins.AddOrUpdate(state.Version, 1, static (_, n) => n + 1);
            Interlocked.MemoryBarrier();

            // Publish reads the pins only after it has published a newer version, so the pin is sure to be seen
            // only if nothing newer is published yet: else it may have been missed, and the horizon moved past it.
            if (ReferenceEquals(Volatile.Read(ref _published), state) && Volatile.Read(ref _horizon) <= state.Version)
            {
                return state;
            }

            Release(state.Version);
        }
    }

    /// <summary>Releases a pin taken by <see cref="Pin"/>. Any thread, a finalizer's included.</summary>
    public void Unpin(long version)
    {
        // A newer version exists and no older pin is left: this pin may be what held the writer's cuts back. The
        // flag is cleared by Publish before it reads the pins, and set here after the pin is gone, so either that
        // Publish sees the pin gone or this call sees the flag clear and signals again.
        if (Release(version)
            && Volatile.Read(ref _published).Version > version
            && !IsPinnedBelow(version)
            && Released is { } released
            && Interlocked.CompareExchange(ref _releaseSignalled, 1, 0) == 0)
        {
            released();
        }
    }

    /// <summary>Drops one pin at <paramref name="version"/>; returns whether it was the last one there.</summary>
    private bool Release(long version)
    {
        while (true)
        {
            var count = _pins.TryGetValue(version, out var n) ? n : 0;
            Debug.Assert(count > 0, "Unpin of a version that is not pinned.");
            if (count == 0)
            {
                return false;
            }

            if (count == 1)
            {
                if (_pins.TryRemove(new KeyValuePair<long, int>(version, count)))
                {
                    return true;
                }
            }
            else if (_pins.TryUpdate(version, count - 1, count))
            {
                return false;
            }
        }
    }

    /// <summary>
    /// Writer only: stages a new version of <paramref name="key"/> at <paramref name="version"/>, which must be
    /// greater than the published version. Returns the node it replaced as the newest (null if none).
    /// </summary>
    public VersionNode<TValue>? Apply(TKey key, long version, TValue? value, bool deleted, uint shardId, int size, ValueLocation? location = null)
    {
        _chains.TryGetValue(key, out var head);
        if (head is null && deleted)
        {
            return null;
        }

        Debug.Assert(version > Published.Version, "Apply stages a version newer than the published one.");
        var node = new VersionNode<TValue>(version, value, deleted, shardId, size, head, location);
        _chains[key] = node;
        if (head is not null)
        {
            _replacing.Enqueue(node);
        }

        if (deleted)
        {
            _tombstones.Enqueue((key, version));
        }

        return head;
    }

    /// <summary>
    /// Load only, before the first <see cref="Publish"/>: makes <paramref name="node"/> the only version of
    /// <paramref name="key"/>, or removes the key when it is null, and returns the node it replaced (null if none).
    /// Unlike <see cref="Apply"/> it keeps no older version and queues nothing to cut: no reader can see a version
    /// before the first publish. Several threads may load at once, as long as each key is loaded by one thread only,
    /// so that a key's records are applied in their order.
    /// </summary>
    public VersionNode<TValue>? Load(TKey key, VersionNode<TValue>? node)
    {
        Debug.Assert(Published.Version == 0, "Load runs before the first publish.");
        Debug.Assert(node is null || (!node.Deleted && node.Next is null), "a loaded node is a value without older versions.");
        if (node is null)
        {
            return _chains.TryRemove(key, out var removed) ? removed : null;
        }

        _chains.TryGetValue(key, out var replaced);
        _chains[key] = node;
        return replaced;
    }

    /// <summary>
    /// Writer only: makes every node staged at <paramref name="version"/> visible at once, with
    /// <paramref name="count"/> live keys, then forgets versions no reader can need.
    /// </summary>
    public void Publish(long version, long count)
    {
        // Cleared before the pins are read (see Unpin), so a pin released after that read signals again.
        Volatile.Write(ref _releaseSignalled, 0);

        // A full fence: the pins below must be read after the new version is visible (see Pin).
        Interlocked.Exchange(ref _published, new PublishedState(version, count));
        var horizon = version;
        foreach (var (pinned, _) in _pins)
        {
            horizon = Math.Min(horizon, pinned);
        }

        Volatile.Write(ref _horizon, horizon);

        // A reader at the horizon or newer stops at a node no newer than the horizon, so what lies below it can go.
        while (_replacing.TryPeek(out var replacing) && replacing.Version <= horizon)
        {
            _replacing.Dequeue();
            if (replacing.Next is not null)
            {
                replacing.Next = VersionNode<TValue>.Trimmed;
            }
        }

        while (_tombstones.TryPeek(out var tombstone) && tombstone.Version <= horizon)
        {
            _tombstones.Dequeue();
            if (_chains.TryGetValue(tombstone.Key, out var head) && head.Deleted && head.Version == tombstone.Version)
            {
                _chains.TryRemove(new KeyValuePair<TKey, VersionNode<TValue>>(tombstone.Key, head));
            }
        }

        Volatile.Write(ref _retained, _replacing.Count + _tombstones.Count);
    }

    private bool TryFind(TKey key, long version, [MaybeNullWhen(false)] out VersionNode<TValue> node, out bool cut)
    {
        cut = false;
        node = null;
        if (!_chains.TryGetValue(key, out var current))
        {
            return false;
        }

        while (current is not null)
        {
            if (ReferenceEquals(current, VersionNode<TValue>.Trimmed))
            {
                cut = true;
                return false;
            }

            if (current.Version <= version)
            {
                if (current.Deleted)
                {
                    return false;
                }

                node = current;
                return true;
            }

            current = current.Next;
        }

        return false;
    }
}
