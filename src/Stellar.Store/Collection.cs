using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using Stellar.Store.Actors;
using Stellar.Store.Engine;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;
using Stellar.Store.Units;

namespace Stellar.Store;

/// <summary>
/// A named set of values keyed by <typeparamref name="TKey"/>, taken from each value by the key selector given
/// to <see cref="StellarStore.GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/>.
/// </summary>
/// <remarks>
/// <para>Thread safety: every member may be called from any thread at once. Writes are serialized by the
/// collection's writer actor; reads never lock and never wait for a writer.</para>
/// <para>When a write's task completes, the write is visible to every reader on every thread and as durable as
/// the store's <see cref="Durability"/> promises. A write that is rejected (a duplicate key on insert, a missing
/// key on update) fails its task and stores nothing. A write whose outcome is uncertain (a storage failure) fails
/// with <see cref="StoreFaultedException"/>, never succeeds silently.</para>
/// <para>Values are serialized when the write is called, and the store keeps its own instance decoded from those
/// bytes, never the caller's object (nor the caller's key object, unless its type cannot change): changing the object
/// afterwards changes nothing that is stored, read, found or compacted. Reads return the instance the store holds, shared by every reader, unless
/// <see cref="StoreOptions.CopyOnRead"/> is set: treat returned values as immutable, or turn that option on.</para>
/// <para>A collection of a read-only store (<see cref="StellarStore.OpenReadOnlyAsync"/>) refuses, with
/// <see cref="InvalidOperationException"/>, every call that would write or remove anything: inserts, updates, upserts,
/// deletes, batches, bulk imports, <see cref="RemoveExpiredAsync"/>, <see cref="CompactAsync"/>,
/// <see cref="RollbackAsync"/> and named change feed cursors; and nothing in the background writes to it. Reads,
/// snapshots, indexes (kept in memory) and the change feed from a position work, and records that have expired by
/// the store's clock stay out of every read.</para>
/// <para>Once the store is disposed, reads (<see cref="Get"/>, <see cref="TryGet"/>, <see cref="Count"/>,
/// <see cref="ExpiresAt"/>, queries, snapshots and indexes) throw <see cref="ObjectDisposedException"/>, as writes do,
/// whether the value is kept in memory or on disk.</para>
/// </remarks>
public sealed partial class Collection<TKey, TValue> : IBatchEncoder<TKey, TValue>
    where TKey : notnull
{
    /// <summary>The largest serialized key accepted.</summary>
    public const int MaxKeyBytes = 4 * 1024;

    /// <summary>The largest serialized value accepted.</summary>
    public const int MaxValueBytes = 64 * 1024 * 1024;

    private readonly IStoreContext _store;
    private readonly Func<TValue, TKey> _keySelector;
    private readonly WriterHandle<CollectionWrite<TKey, TValue>, bool> _writer;

    /// <summary>When a write that gives no expiry expires (UTC ticks, 0: never), by the collection's policy; null: no policy.</summary>
    private Func<TValue, long>? _expiryPolicy;
    private readonly VersionedMap<TKey, TValue> _map;
    private readonly CollectionEngine<TKey, TValue> _engine;
    private readonly Func<VersionNode<TValue>, TValue> _read;
    private readonly bool _copyOnRead;
    private readonly Compactor _compactor;

    internal Collection(IStoreContext store, string name, Func<TValue, TKey> keySelector, WriterHandle<CollectionWrite<TKey, TValue>, bool> writer, CollectionEngine<TKey, TValue> engine, Compactor compactor, bool copyOnRead)
    {
        _store = store;
        Name = name;
        _keySelector = keySelector;
        _writer = writer;
        _engine = engine;
        _map = engine.Map;
        // A large value is read from disk on every read, so it is a private copy already.
        _read = copyOnRead
            ? node => node.Location is null ? engine.Serializer.Copy(node.Value!) : engine.ReadValue(node)
            : engine.ReadValue;
        _copyOnRead = copyOnRead;
        _compactor = compactor;
        Participant = new UnitParticipant<TKey, TValue>(writer);
    }

    /// <summary>The collection as a participant of the store's cross-collection writes.</summary>
    internal IUnitParticipant Participant { get; }

    /// <summary>The collection's engine (for tests that look at what is held in memory).</summary>
    internal CollectionEngine<TKey, TValue> Engine => _engine;

    /// <summary>The collection's writer handle (for tests that look at its queue).</summary>
    internal WriterHandle<CollectionWrite<TKey, TValue>, bool> Writer => _writer;

    /// <summary>The collection's name.</summary>
    public string Name { get; }

    /// <summary>
    /// The most encoded record bytes one atomic <see cref="WriteAsync"/> batch may hold (just under 256 MiB): a batch
    /// is stored as one block, and a larger block could not be read back. Each record takes its serialized key and
    /// value plus 9 bytes.
    /// </summary>
    public int MaxBatchBytes => _engine.MaxBlockBytes;

    /// <summary>
    /// How much of the collection's files is live, for deciding on <see cref="CompactAsync"/>. Never blocks; the
    /// figures are of the newest published write.
    /// </summary>
    public CollectionStatistics Statistics =>
        new(_map.CountNow(_map.Published), _engine.StoredBytes, _engine.LiveBytes, _engine.Compactions, _compactor.LastError, _map.RetainedVersions, _map.PinCount, _engine.UndecidedBlocks);

    /// <summary>The number of keys, as of the newest published write and the time now (expired records left out). Never blocks.</summary>
    /// <exception cref="ObjectDisposedException">The store was disposed.</exception>
    public long Count
    {
        get
        {
            _store.ThrowIfDisposed();
            return _map.CountNow(_map.Published);
        }
    }

    /// <summary>The value stored under <paramref name="key"/>, or default when there is none. Never blocks.</summary>
    /// <exception cref="ObjectDisposedException">The store was disposed.</exception>
    public TValue? Get(TKey key) => TryGet(key, out var value) ? value : default;

    /// <summary>Reads the value stored under <paramref name="key"/>. Never blocks; sees every write whose task completed.</summary>
    /// <exception cref="ObjectDisposedException">The store was disposed (also for a value kept in memory).</exception>
    public bool TryGet(TKey key, [MaybeNullWhen(false)] out TValue value)
    {
        ArgumentNullException.ThrowIfNull(key);
        _store.ThrowIfDisposed();
        if (!_map.TryGetLatest(key, out var node))
        {
            value = default;
            return false;
        }

        // The common case inline: the shared instance of a value in memory. Copies, values on disk and their retries
        // (with the try/catch that would keep this frame from being cheap) live in ReadSlow.
        if (node.InMemory && !_copyOnRead)
        {
            value = node.Value!;
            return true;
        }

        return ReadSlow(key, node, out value);
    }

    /// <summary>Reads <paramref name="node"/> through the read delegate; when its shard was compacted away meanwhile, reads the newest version instead.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool ReadSlow(TKey key, VersionNode<TValue> node, [MaybeNullWhen(false)] out TValue value)
    {
        do
        {
            try
            {
                value = _read(node);
                return true;
            }
            catch (RetiredShardException)
            {
                // The version found was replaced, then compacted away, while it was read: read the newest one.
            }
        }
        while (_map.TryGetLatest(key, out node!));

        value = default;
        return false;
    }

    /// <summary>
    /// Every value that matches <paramref name="predicate"/> (null: all), read from one consistent version taken
    /// when enumeration starts; compose further with LINQ. Order is not defined. The enumeration holds a snapshot
    /// until it ends or its enumerator is disposed (<c>foreach</c> does both); an enumerator abandoned half way
    /// holds it until the garbage collector finalizes it (see <see cref="CollectionSnapshot{TKey,TValue}"/>).
    /// </summary>
    public IEnumerable<TValue> Query(Func<TValue, bool>? predicate = null) =>
        CollectionSnapshot<TKey, TValue>.QueryLatest(Snapshot, predicate);

    /// <summary>Pins the newest version: reads through it stay at that version until it is disposed.</summary>
    public CollectionSnapshot<TKey, TValue> Snapshot() => new(_store, _map, _read, _copyOnRead);

    /// <summary>A snapshot at <paramref name="state"/>, whose version a store snapshot holds pinned (see <see cref="StoreSnapshot"/>).</summary>
    internal CollectionSnapshot<TKey, TValue> SnapshotAt(PublishedState state, long now)
    {
        _map.PinHeld(state.Version);
        return new CollectionSnapshot<TKey, TValue>(_store, _map, _read, _copyOnRead, state, now);
    }

    /// <summary>Whether the collection was opened by <paramref name="store"/>.</summary>
    internal bool BelongsTo(IStoreContext store) => ReferenceEquals(_store, store);

    /// <summary>Inserts <paramref name="value"/>; fails with <see cref="DuplicateKeyException"/> (nothing stored) when its key exists.</summary>
    public Task InsertAsync(TValue value, CancellationToken cancellationToken = default) =>
        SubmitValueAsync(WriteKind.Insert, value, cancellationToken);

    /// <summary>Replaces the value under <paramref name="value"/>'s key; fails with <see cref="KeyNotFoundException"/> when it is missing.</summary>
    public Task UpdateAsync(TValue value, CancellationToken cancellationToken = default) =>
        SubmitValueAsync(WriteKind.Update, value, cancellationToken);

    /// <summary>Inserts <paramref name="value"/> or replaces the value under its key.</summary>
    public Task UpsertAsync(TValue value, CancellationToken cancellationToken = default) =>
        SubmitValueAsync(WriteKind.Upsert, value, cancellationToken);

    /// <summary>
    /// Deletes <paramref name="key"/>; completes with whether it existed (a record that has expired does not). Deleting
    /// a key that is not stored writes nothing; an expired record is still stored until the writer removes it, so
    /// deleting it writes its delete record (see <see cref="RemoveExpiredAsync"/>).
    /// </summary>
    public Task<bool> DeleteAsync(TKey key, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled<bool>(cancellationToken);
        }

        SingleWrite<TKey, TValue> write;
        try
        {
            write = Encode(WriteKind.Delete, key, default);
        }
        catch (Exception e)
        {
            return Task.FromException<bool>(e);
        }

        return SubmitAsync(write, cancellationToken);
    }

    /// <summary>
    /// Applies the writes <paramref name="build"/> adds to the batch atomically: one block on disk, visible at once,
    /// all or none. If any write is rejected, the task fails with that rejection and nothing is stored.
    /// </summary>
    /// <exception cref="ArgumentException">The batch's records take more than <see cref="MaxBatchBytes"/>; nothing is stored.</exception>
    /// <exception cref="InvalidOperationException">The store was opened read-only (a checkpoint), even for an empty batch.</exception>
    public Task WriteAsync(Action<WriteBatch<TKey, TValue>> build, CancellationToken cancellationToken = default)
    {
        if (build is null)
        {
            return Task.FromException(new ArgumentNullException(nameof(build)));
        }

        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled(cancellationToken);
        }

        var batch = new WriteBatch<TKey, TValue>(this);
        try
        {
            _store.ThrowIfDisposed();
            _store.ThrowIfReadOnly();
            build(batch);
            CheckBatchSize(batch.Writes, nameof(build));
        }
        catch (Exception e)
        {
            batch.Writes.ForEach(w => w.Release());
            return Task.FromException(e);
        }

        // The writer's task itself, as a single write's, with no frame of ours around it: a caller that waits for it
        // synchronously on a pool thread needs no other pool thread for it to complete.
        return SubmitAtomicAsync(batch.Writes, cancellationToken);
    }

    /// <summary>Rejects <paramref name="writes"/> (nothing stored) when they take more than <see cref="MaxBatchBytes"/>.</summary>
    internal void CheckBatchSize(List<SingleWrite<TKey, TValue>> writes, string paramName)
    {
        var bytes = writes.Sum(w => (long)w.Length);
        if (bytes > MaxBatchBytes)
        {
            throw CollectionEngine<TKey, TValue>.TooLargeForOneBlock(bytes, MaxBatchBytes, paramName);
        }
    }

    /// <summary>Commits <paramref name="writes"/> as one atomic batch, and gives their buffers back once it has an outcome.</summary>
    internal Task SubmitAtomicAsync(List<SingleWrite<TKey, TValue>> writes, CancellationToken cancellationToken) =>
        writes.Count == 0 ? Task.CompletedTask : SubmitAsync(new BatchWrite<TKey, TValue>(writes, atomic: true), cancellationToken);

    /// <summary>
    /// Upserts every value of <paramref name="source"/> in large blocks (encoded in parallel, written in order),
    /// then flushes once. A key that appears more than once ends with its last value. On cancellation, a bad
    /// record or a block that would break a unique index (<see cref="UniqueConstraintException"/>) the task fails;
    /// what stays is a prefix of the source made of whole blocks (every block before the failing one, none after it),
    /// and no block is ever half visible. Cancellation is seen between blocks: a block handed to the writer (waiting
    /// for room in its queue, or queued) is stored or fails on its own, so the cancelled task may complete a block later.
    /// </summary>
    /// <exception cref="InvalidOperationException">The store was opened read-only (a checkpoint), even for an empty source.</exception>
    public Task BulkImportAsync(IEnumerable<TValue> source, IProgress<BulkImportProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        return BulkImportAsync(ToAsync(source, cancellationToken), progress, cancellationToken);
    }

    /// <inheritdoc cref="BulkImportAsync(IEnumerable{TValue}, IProgress{BulkImportProgress}?, CancellationToken)"/>
    public Task BulkImportAsync(IAsyncEnumerable<TValue> source, IProgress<BulkImportProgress>? progress = null, CancellationToken cancellationToken = default) =>
        ImportAsync(source, expiresAt: null, progress, cancellationToken);

    /// <summary>
    /// Imports <paramref name="source"/> as <see cref="BulkImportAsync(IEnumerable{TValue}, IProgress{BulkImportProgress}?, CancellationToken)"/>
    /// does, each record expiring at the time <paramref name="expiresAt"/> gives for it (null: it never expires), as
    /// <see cref="UpsertAsync(TValue, DateTimeOffset, CancellationToken)"/> stores it: sessions, leases or auctions moved
    /// from another server keep their ends. <paramref name="expiresAt"/> is called once per record, on the import's
    /// encoding threads. A time that is not after now (by <see cref="StoreOptions.Clock"/>) fails the import with
    /// <see cref="ArgumentOutOfRangeException"/>, as any bad record does: the blocks before it stay. Leave records that
    /// may have ended already out of <paramref name="source"/>.
    /// </summary>
    public Task BulkImportAsync(IEnumerable<TValue> source, Func<TValue, DateTimeOffset?> expiresAt, IProgress<BulkImportProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(expiresAt);
        return ImportAsync(ToAsync(source, cancellationToken), expiresAt, progress, cancellationToken);
    }

    /// <inheritdoc cref="BulkImportAsync(IEnumerable{TValue}, Func{TValue, DateTimeOffset?}, IProgress{BulkImportProgress}?, CancellationToken)"/>
    public Task BulkImportAsync(IAsyncEnumerable<TValue> source, Func<TValue, DateTimeOffset?> expiresAt, IProgress<BulkImportProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(expiresAt);
        return ImportAsync(source, expiresAt, progress, cancellationToken);
    }

    private async Task ImportAsync(IAsyncEnumerable<TValue> source, Func<TValue, DateTimeOffset?>? expiresAt, IProgress<BulkImportProgress>? progress, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(source);
        _store.ThrowIfDisposed();
        _store.ThrowIfReadOnly();

        await new BulkImport<TKey, TValue>(
                expiresAt is null
                    ? value => Encode(WriteKind.Upsert, KeyOf(value), value)
                    : value => Encode(WriteKind.Upsert, KeyOf(value), value, expiresAt(value) is { } at ? WriteExpiry.At(ExpiryAt(at)) : WriteExpiry.Never),
                SubmitAsync,
                _store.Options.MaxDegreeOfParallelism)
            .RunAsync(source, progress, cancellationToken)
            .ConfigureAwait(false);

        // An import that wrote nothing meets no other disposed check, and a flush sent to a stopped writer never completes.
        _store.ThrowIfDisposed();
        await _writer.FlushAsync().ConfigureAwait(false);
    }

    /// <summary>
    /// Rewrites the collection's live records into new shard files and deletes the old ones, reclaiming the space of
    /// overwritten and deleted records. Writers and readers keep going meanwhile: the records are copied in the
    /// background from a pinned version and swapped in with one atomic manifest replace. A crash at any point leaves
    /// a store that opens with every committed record. The store also compacts a collection on its own when its live
    /// ratio falls under <see cref="StoreOptions.CompactionThreshold"/>.
    /// </summary>
    /// <remarks>Thread safety: may be called from any thread; compactions of one collection run one at a time.</remarks>
    /// <returns>
    /// A task that completes when the new files are on disk (fsynced) and swapped in. The old files are deleted then,
    /// or, when a snapshot taken before the compaction is still open, at the first write after it is disposed (or
    /// when the store closes).
    /// </returns>
    /// <exception cref="IOException">
    /// Storage failed while the records were copied, before anything was swapped in: the collection is unchanged
    /// and stays usable, and the partial output is removed (now or at the next open).
    /// </exception>
    /// <exception cref="CorruptBlockException">
    /// A block the copy had to read from disk (one holding a large value) is damaged: nothing was swapped in, the
    /// collection is unchanged and stays usable, and a read of that value throws the same.
    /// </exception>
    /// <exception cref="StoreFaultedException">
    /// The manifest replace that swaps the output in failed, and its outcome cannot be known: it
    /// may have taken effect, so nothing is undone and no file of either side is deleted. The collection is faulted
    /// as after a failed write; readers still see every acknowledged record, and reopening the store recovers it
    /// from whichever manifest is on disk.
    /// </exception>
    /// <exception cref="InvalidOperationException">The store was opened read-only (a checkpoint): its files are not rewritten.</exception>
    public Task CompactAsync(CancellationToken cancellationToken = default)
    {
        _store.ThrowIfDisposed();
        _store.ThrowIfReadOnly();
        return _compactor.CompactAsync(cancellationToken);
    }

    internal TKey KeyOf(TValue value)
    {
        var key = _keySelector(value);
        if (key is null)
        {
            throw new ArgumentException("The key selector returned null for this value.", nameof(value));
        }

        return key;
    }

    /// <summary>
    /// The write of <paramref name="kind"/>, serialized and checked; an insert, update or upsert whose
    /// <paramref name="expiry"/> is <see cref="WriteExpiry.Unspecified"/> takes the collection's policy.
    /// </summary>
    internal SingleWrite<TKey, TValue> Encode(WriteKind kind, TKey key, TValue? value, WriteExpiry expiry = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        _store.ThrowIfDisposed();
        _store.ThrowIfReadOnly();
        var expiresAt = expiry.Ticks;
        if (!expiry.Given && kind != WriteKind.Delete && Volatile.Read(ref _expiryPolicy) is { } policy)
        {
            // A write that gives no expiry of its own expires as the collection's policy says.
            expiresAt = policy(value!);
        }

        return SingleWrite<TKey, TValue>.Create(_engine.Serializer, kind, key, value, MaxKeyBytes, MaxValueBytes, expiresAt);
    }

    /// <summary>
    /// Upserts <paramref name="value"/> for the store itself, also while it closes: the unit log's decisions of the rounds
    /// a close waits for. The writer refuses it only once it was closed.
    /// </summary>
    internal Task StoreUpsertAsync(TValue value) =>
        SubmitAsync(SingleWrite<TKey, TValue>.Create(_engine.Serializer, WriteKind.Upsert, KeyOf(value), value, MaxKeyBytes, MaxValueBytes), CancellationToken.None);

    TKey IBatchEncoder<TKey, TValue>.KeyOf(TValue value) => KeyOf(value);

    SingleWrite<TKey, TValue> IBatchEncoder<TKey, TValue>.Encode(WriteKind kind, TKey key, TValue? value, WriteExpiry expiry) => Encode(kind, key, value, expiry);

    long IBatchEncoder<TKey, TValue>.ExpiryOf(TimeSpan expiresAfter) => ExpiryOf(expiresAfter);

    long IBatchEncoder<TKey, TValue>.ExpiryAt(DateTimeOffset expiresAt) => ExpiryAt(expiresAt);

    /// <summary>
    /// Encodes and queues the write of <paramref name="value"/>. Whatever refuses it before it is queued (a null value,
    /// a cancelled token, a value that does not serialize) fails the task, as the whole write does, and is not thrown at
    /// the call; the task is the one the writer's handle gives, with no frame of its own around it.
    /// </summary>
    private Task SubmitValueAsync(WriteKind kind, TValue value, CancellationToken cancellationToken, TimeSpan? expiresAfter = null, DateTimeOffset? expiresAt = null)
    {
        if (value is null)
        {
            return Task.FromException(new ArgumentNullException(nameof(value)));
        }

        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled(cancellationToken);
        }

        SingleWrite<TKey, TValue> write;
        try
        {
            var expiry = expiresAfter is { } after ? WriteExpiry.At(ExpiryOf(after)) : expiresAt is { } at ? WriteExpiry.At(ExpiryAt(at)) : WriteExpiry.Unspecified;
            write = Encode(kind, KeyOf(value), value, expiry);
        }
        catch (Exception e)
        {
            return Task.FromException(e);
        }

        return SubmitAsync(write, cancellationToken);
    }

    /// <summary>
    /// Queues a write. Its buffers go back once it has an outcome, whatever that is: the writer's handle gives each
    /// write back to <see cref="CollectionWrite{TKey,TValue}.Release"/> then, because only then is it certain that
    /// neither the writer nor the engine still reads them.
    /// </summary>
    private Task<bool> SubmitAsync(CollectionWrite<TKey, TValue> write, CancellationToken cancellationToken) =>
        _writer.SubmitAsync(write, write.Bytes, cancellationToken);

    private static async IAsyncEnumerable<TValue> ToAsync(IEnumerable<TValue> source, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        foreach (var value in source)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return value;
        }

        await Task.CompletedTask.ConfigureAwait(false);
    }
}
