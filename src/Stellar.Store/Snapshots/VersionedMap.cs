using System.Collections.Concurrent;
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
/// <para>Thread safety: exactly one writer thread at a time calls <see cref="Apply"/>, <see cref="Publish"/> and
/// <see cref="Unpin"/>'s cleanup (the collection's writer); any number of readers call the rest concurrently.
/// Readers never lock: <see cref="ConcurrentDictionary{TKey,TValue}.TryGetValue"/> is lock-free.</para>
/// <para>Old versions are kept while a pinned snapshot may need them. The writer keeps, on each chain
/// it touches, the versions down to the oldest pinned version, and marks the cut with
/// <see cref="VersionNode{TValue}.Trimmed"/>; an unpinned reader that reaches a cut retries at the newest version.</para>
/// </remarks>
internal sealed class VersionedMap<TKey, TValue>
    where TKey : notnull
{
    private readonly ConcurrentDictionary<TKey, VersionNode<TValue>> _chains;
    private readonly ConcurrentDictionary<long, int> _pins = new();
    private readonly Queue<(TKey Key, long Version)> _tombstones = new();
    private PublishedState _published = new(0, 0);
    private long _horizon;

    public VersionedMap(IEqualityComparer<TKey>? comparer = null)
    {
        _chains = new ConcurrentDictionary<TKey, VersionNode<TValue>>(comparer);
    }

    /// <summary>The newest published version and the live key count at it.</summary>
    public PublishedState Published => Volatile.Read(ref _published);

    /// <summary>The number of keys in the dictionary, tombstones included (for diagnostics).</summary>
    public int ChainCount => _chains.Count;

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

            Unpin(state.Version);
        }
    }

    /// <summary>Releases a pin taken by <see cref="Pin"/>.</summary>
    public void Unpin(long version)
    {
        while (true)
        {
            var count = _pins.TryGetValue(version, out var n) ? n : 0;
            if (count <= 1)
            {
                if (_pins.TryRemove(new KeyValuePair<long, int>(version, count)))
                {
                    return;
                }
            }
            else if (_pins.TryUpdate(version, count - 1, count))
            {
                return;
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

        var node = new VersionNode<TValue>(version, value, deleted, shardId, size, head, location);
        _chains[key] = node;
        if (head is not null)
        {
            TrimBelowHorizon(head);
        }

        if (deleted)
        {
            _tombstones.Enqueue((key, version));
        }

        return head;
    }

    /// <summary>
    /// Writer only: makes every node staged at <paramref name="version"/> visible at once, with
    /// <paramref name="count"/> live keys, then forgets versions no reader can need.
    /// </summary>
    public void Publish(long version, long count)
    {
        // A full fence: the pins below must be read after the new version is visible (see Pin).
        Interlocked.Exchange(ref _published, new PublishedState(version, count));
        var horizon = version;
        foreach (var (pinned, _) in _pins)
        {
            horizon = Math.Min(horizon, pinned);
        }

        Volatile.Write(ref _horizon, horizon);
        while (_tombstones.TryPeek(out var tombstone) && tombstone.Version <= horizon)
        {
            _tombstones.Dequeue();
            if (_chains.TryGetValue(tombstone.Key, out var head) && head.Deleted && head.Version == tombstone.Version)
            {
                _chains.TryRemove(new KeyValuePair<TKey, VersionNode<TValue>>(tombstone.Key, head));
            }
        }
    }

    private void TrimBelowHorizon(VersionNode<TValue> node)
    {
        // Keep the newest version at or below the horizon (the one the oldest reader sees); cut what is older.
        var horizon = Volatile.Read(ref _horizon);
        for (var current = node; current is not null && !ReferenceEquals(current, VersionNode<TValue>.Trimmed); current = current.Next)
        {
            if (current.Version <= horizon)
            {
                if (current.Next is not null)
                {
                    current.Next = VersionNode<TValue>.Trimmed;
                }

                return;
            }
        }
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
