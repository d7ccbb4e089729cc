using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using Stellar.Store.Indexes;

namespace Stellar.Store.Snapshots;

/// <summary>
/// The in-memory state of one collection: a version chain per key in a <see cref="HeadTable{TKey,TValue}"/>,
/// and a published commit version that readers read once.
/// </summary>
/// <remarks>
/// <para>Why this shape: a point read is one dictionary lookup plus a version check on the chain's head, which
/// keeps it close to a plain <see cref="ConcurrentDictionary{TKey,TValue}"/> read, and publishing a commit never
/// copies the collection: the writer pushes new heads stamped with the next version, then publishes that version
/// with one volatile write. A reader at version <c>v</c> skips heads newer than <c>v</c>, so it never sees half a
/// commit.</para>
/// <para>Thread safety: exactly one writer thread at a time calls <see cref="Apply"/> and <see cref="Publish"/>
/// (the collection's writer), and only it ever cuts a chain (before the first publish, the loader calls
/// <see cref="Load"/> from one thread); any number of threads call the rest concurrently.
/// Readers never lock: <see cref="HeadTable{TKey,TValue}.TryGetValue"/> is lock-free.</para>
/// <para>Old versions are kept only while a pinned snapshot may need them. Each node that replaces a version is
/// queued at <see cref="Apply"/>; at every <see cref="Publish"/> the writer cuts the chain below each queued node
/// that no pin is older than (marking the cut with <see cref="VersionNode{TValue}.Trimmed"/>), so with no snapshot
/// open a replaced version is garbage as soon as its successor is published. An unpinned reader that reaches a cut
/// retries at the newest version. When the oldest pin goes, <see cref="Unpin"/> raises <see cref="Released"/> so
/// that the writer publishes again and cuts what that pin held, even if no write follows.</para>
/// </remarks>
internal sealed partial class VersionedMap<TKey, TValue> : IPinnable, IRecordHeads<TKey, TValue>
    where TKey : notnull
{
    private readonly HeadTable<TKey, TValue> _chains;
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
    /// the table its rebuilds, each of which copies every head.
    /// </param>
    /// <param name="clock">
    /// The time that tells when a record expires (<see cref="VersionNode{TValue}.ExpiresAt"/>), the store's; null for one
    /// of its own on the system clock.
    /// </param>
    public VersionedMap(IEqualityComparer<TKey>? comparer = null, int capacity = 0, ExpiryClock? clock = null)
    {
        _chains = new HeadTable<TKey, TValue>(comparer, capacity);
        Clock = clock ?? new ExpiryClock(TimeProvider.System);
        Expiry = new ExpiryIndex<TKey, TValue>();
    }

    /// <summary>The records that expire, by when: kept in step with every version applied (see <see cref="ExpiryIndex{TKey,TValue}"/>).</summary>
    public ExpiryIndex<TKey, TValue> Expiry { get; }

    /// <summary>
    /// How many keys a reader of <paramref name="state"/> at time <paramref name="now"/> (UTC ticks) sees: the keys
    /// stored then, less those that had expired by then.
    /// </summary>
    public long CountAt(PublishedState state, long now) =>
        Expiry.Empty ? state.Count : state.Count - Expiry.ExpiredAt(state.Version, now);

    /// <summary>As <see cref="CountAt"/> at the time now; reads the clock only when a record stored now expires.</summary>
    public long CountNow(PublishedState state) => Expiry.Empty ? state.Count : CountAt(state, Clock.Observe());

    /// <summary>The time that tells when a record expires, which never goes back while the store is open.</summary>
    public ExpiryClock Clock { get; }

    /// <summary>The time now, in UTC ticks, as expiry times are kept (see <see cref="ExpiryClock.Now"/>).</summary>
    public long Now => Clock.Now;

    /// <summary>The newest published version and the live key count at it.</summary>
    public PublishedState Published => Volatile.Read(ref _published);

    /// <summary>The number of keys in the dictionary, tombstones included (for diagnostics).</summary>
    public int ChainCount => _chains.Count;

    /// <summary>
    /// Versions kept only because an open snapshot may read them, as of the newest publish: replaced values and
    /// deletion markers whose cut waits for an older pin to go.
    /// </summary>
    public int RetainedVersions => Volatile.Read(ref _retained);

    /// <summary>
    /// Raised on the thread that releases the oldest pin while newer versions exist, at most once until the next
    /// <see cref="Publish"/>: the writer should publish again so that it cuts what the pin held. Must not block.
    /// </summary>
    public Action? Released { get; set; }

    /// <summary>
    /// Called by the writer at every publish with the horizon: no reader reads below it any more, so what ended by then
    /// can go (the collection's indexes trim their ended entries). Must not block.
    /// </summary>
    public Action<long>? HorizonMoved { get; set; }

    /// <summary>
    /// Reads the newest published value of <paramref name="key"/>, as the clock reads now: a record that has expired
    /// is not found, whether or not the writer has removed it yet.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetLatest(TKey key, [MaybeNullWhen(false)] out VersionNode<TValue> node)
    {
        // The common case inline: the head is published, so no older version matters and no cut can be met.
        var version = Volatile.Read(ref _published).Version;
        if (!_chains.TryGetValue(key, out var head))
        {
            node = null;
            return false;
        }

        if (head.Version <= version)
        {
            node = head;
            return head.Plain || LiveNow(head);
        }

        return TryGetLatestSlow(key, head, version, out node);
    }

    /// <summary>
    /// Whether <paramref name="node"/>, a value that expires or a deletion, is live now; one found expired holds the
    /// time at its end at least (see <see cref="ExpiryClock"/>), so that it stays expired when the clock is set back.
    /// </summary>
    private bool LiveNow(VersionNode<TValue> node)
    {
        if (node.LiveAt(Clock.Now))
        {
            return true;
        }

        Clock.Passed(node.ExpiresAt);
        return false;
    }

    /// <summary>
    /// Reads <paramref name="key"/> as of a pinned <paramref name="version"/> and the time <paramref name="now"/> (UTC
    /// ticks; 0 counts a record that expires as alive).
    /// </summary>
    public bool TryGetAt(TKey key, long version, long now, [MaybeNullWhen(false)] out VersionNode<TValue> node)
    {
        // A pinned version is never cut, so the walk always ends on an answer.
        return TryFind(key, version, now, out node, out _);
    }

    /// <summary>
    /// Writer only: whether <paramref name="key"/>'s newest published version is stored as a value, whether or not it
    /// has expired (the key counts in <see cref="PublishedState.Count"/> until a delete removes it).
    /// </summary>
    public bool Stored(TKey key) => _chains.Find(key) is { Deleted: false };

    /// <summary>Writer only: the node the last <see cref="Apply"/> staged (null when it staged none), for the indexes.</summary>
    public VersionNode<TValue>? LastApplied { get; private set; }

    /// <summary>The head node of <paramref name="key"/>, including unpublished ones; for the writer only.</summary>
    public VersionNode<TValue>? Head(TKey key) => _chains.Find(key);

    /// <summary>Writer only: the head of each of <paramref name="keys"/> that is stored, into <paramref name="heads"/> (null for the rest).</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void HeadsOf(ReadOnlySpan<TKey> keys, Span<VersionNode<TValue>?> heads)
    {
        for (var i = 0; i < keys.Length; i++)
        {
            heads[i] = _chains.Find(keys[i]);
        }

        for (var i = 0; i < heads.Length; i++)
        {
            if (heads[i] is { Deleted: true })
            {
                heads[i] = null;
            }
        }
    }

    /// <summary>
    /// Any thread, at a pinned <paramref name="version"/>: the version of each of <paramref name="keys"/> then (null when
    /// deleted or absent), into <paramref name="heads"/>; in two passes (see <see cref="IRecordHeads{TKey,TValue}.HeadsOf"/>).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void HeadsAt(ReadOnlySpan<TKey> keys, long version, Span<VersionNode<TValue>?> heads)
    {
        for (var i = 0; i < keys.Length; i++)
        {
            heads[i] = _chains.TryGetValue(keys[i], out var head) ? head : null;
        }

        for (var i = 0; i < heads.Length; i++)
        {
            if (heads[i] is { } head)
            {
                heads[i] = VisibleAt(head, version);
            }
        }
    }

    /// <summary>
    /// Enumerates every key stored as a value at <paramref name="version"/>, which the caller has pinned, whether or
    /// not it has expired (a compaction keeps a record until a delete removes it).
    /// </summary>
    public IEnumerable<KeyValuePair<TKey, VersionNode<TValue>>> EnumerateAt(long version)
    {
        foreach (var (key, head) in _chains)
        {
            if (VisibleAt(head, version) is { } node)
            {
                yield return new KeyValuePair<TKey, VersionNode<TValue>>(key, node);
            }
        }
    }

    /// <summary>Every key stored as a value at <paramref name="version"/>, which the caller has pinned, for an index's build.</summary>
    public HeadScan<TKey, TValue> ScanAt(long version) => _chains.Scan(version);

    /// <summary>Writer only, with nothing applied that is not published: every key stored as a value, for an index's build.</summary>
    public HeadScan<TKey, TValue> Scan() => _chains.Scan(long.MaxValue);

    /// <summary>
    /// The head of every key's chain, tombstones included, in no set order: for scans, which take from each head the
    /// node <see cref="VisibleAt(VersionNode{TValue}, long, long)"/> their pinned version, so that a scan costs one dictionary walk and no lookup per key.
    /// </summary>
    public IEnumerable<KeyValuePair<TKey, VersionNode<TValue>>> Heads => _chains;

    /// <summary>
    /// Writer only: stages a new version of <paramref name="key"/> at <paramref name="version"/>, which must be
    /// greater than the published version. Returns the node it replaced as the newest (null if none).
    /// </summary>
    public VersionNode<TValue>? Apply(TKey key, long version, TValue? value, bool deleted, uint shardId, int size, ValueLocation? location = null, long expiresAt = 0)
    {
        var head = _chains.Find(key);
        if (head is null && deleted)
        {
            LastApplied = null;
            return null;
        }

        Debug.Assert(version > Published.Version, "Apply stages a version newer than the published one.");
        var node = VersionNode<TValue>.Create(version, value, deleted, shardId, size, head, location, expiresAt);
        _chains.Set(key, node);
        LastApplied = node;
        Expiry.Applied(key, deleted, value, version, node);
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
    /// Load only, before the first <see cref="Publish"/>, from one thread: makes <paramref name="node"/> the only
    /// version of <paramref name="key"/>, or removes the key when it is null, and returns the node it replaced (null
    /// if none). Unlike <see cref="Apply"/> it keeps no older version and queues nothing to cut: no reader can see a
    /// version before the first publish.
    /// </summary>
    public VersionNode<TValue>? Load(TKey key, VersionNode<TValue>? node)
    {
        Debug.Assert(Published.Version == 0, "Load runs before the first publish.");
        Debug.Assert(node is null || (!node.Deleted && node.Next is null), "a loaded node is a value without older versions.");
        var replaced = _chains.Find(key);
        if (node is not null)
        {
            _chains.Set(key, node);
        }
        else if (replaced is not null)
        {
            _chains.Remove(key, replaced);
        }

        return replaced;
    }

    /// <summary>
    /// Writer only: makes every node staged at <paramref name="version"/> visible at once, with
    /// <paramref name="count"/> live keys, then forgets versions no reader can need.
    /// </summary>
    public void Publish(long version, long count) => PublishState(new PublishedState(version, count));

    /// <summary>
    /// Writer only: publishes a cross-collection round's part, staged at <paramref name="version"/>, as
    /// <see cref="Publish(long, long)"/> does, except that it keeps the version before it readable: until the round is
    /// visible in every collection, a store snapshot reads this collection there (see <see cref="PublishedState.PartRound"/>).
    /// The next publish forgets it.
    /// </summary>
    public void PublishPart(long version, long count, long round, long countBefore) =>
        PublishState(new PublishedState(version, count, round, countBefore));

    private void PublishState(PublishedState state)
    {
        // Cleared before the pins are read (see Unpin), so a pin released after that read signals again.
        Volatile.Write(ref _releaseSignalled, 0);

        // A full fence: the pins below must be read after the new version is visible (see Pin).
        Interlocked.Exchange(ref _published, state);
        var horizon = state.PartRound == 0 ? state.Version : state.Version - 1;
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
            if (_chains.Find(tombstone.Key) is { Deleted: true } head && head.Version == tombstone.Version)
            {
                _chains.Remove(tombstone.Key, head);
            }
        }

        Volatile.Write(ref _retained, _replacing.Count + _tombstones.Count);
        Expiry.Trim(horizon);
        HorizonMoved?.Invoke(horizon);
    }

    /// <summary>
    /// The version of a pinned reader's key at <paramref name="version"/> and time <paramref name="now"/> (UTC ticks),
    /// walking from <paramref name="head"/>, or null when the key is deleted, expired or absent then.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static VersionNode<TValue>? VisibleAt(VersionNode<TValue> head, long version, long now) =>
        VisibleAt(head, version) is { } node && (node.Plain || node.LiveAt(now)) ? node : null;

    /// <summary>
    /// The version of a pinned reader's key at <paramref name="version"/>, walking from <paramref name="head"/>, or null
    /// when the key is deleted or absent then, expired or not. A pinned version is never cut, so the walk never meets the mark.
    /// </summary>
    public static VersionNode<TValue>? VisibleAt(VersionNode<TValue> head, long version) => head.At(version);

    /// <summary>The newest published version when the head is newer: walks the chain, and retries at the newest version past a cut.</summary>
    private bool TryGetLatestSlow(TKey key, VersionNode<TValue> head, long version, [MaybeNullWhen(false)] out VersionNode<TValue> node)
    {
        // Rare (a write of the key is being published), so it holds its time as a count does rather than find which node expired.
        var now = Clock.Observe();
        while (true)
        {
            var found = TryFind(head, version, now, out node, out var cut);
            if (!cut)
            {
                return found;
            }

            version = Volatile.Read(ref _published).Version;
            if (!_chains.TryGetValue(key, out head!))
            {
                return false;
            }
        }
    }

    private bool TryFind(TKey key, long version, long now, [MaybeNullWhen(false)] out VersionNode<TValue> node, out bool cut)
    {
        if (!_chains.TryGetValue(key, out var head))
        {
            cut = false;
            node = null;
            return false;
        }

        return TryFind(head, version, now, out node, out cut);
    }

    private static bool TryFind(VersionNode<TValue> head, long version, long now, [MaybeNullWhen(false)] out VersionNode<TValue> node, out bool cut)
    {
        cut = false;
        node = null;
        VersionNode<TValue>? current = head;
        while (current is not null)
        {
            if (ReferenceEquals(current, VersionNode<TValue>.Trimmed))
            {
                cut = true;
                return false;
            }

            if (current.Version <= version)
            {
                if (!current.LiveAt(now))
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
