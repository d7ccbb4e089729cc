using System.Diagnostics;
using System.Runtime.CompilerServices;
using Akka.Actor;
using Akka.Configuration;
using Microsoft.Extensions.Logging;
using Stellar.Store.Actors;
using Stellar.Store.Codecs;
using Stellar.Store.Diagnostics;
using Stellar.Store.Engine;
using Stellar.Store.Feed;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;
using Stellar.Store.Storage;
using Stellar.Store.Units;

namespace Stellar.Store;

/// <summary>
/// An open store: a directory of append-only shard files, owned exclusively by this instance until it is
/// disposed. Open one with <see cref="OpenAsync(string, StoreOptions?, CancellationToken)"/>; get collections with <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/>.
/// </summary>
/// <remarks>
/// Thread safety: every member may be called from any thread. Disposing flushes every collection (fsync) and
/// releases the directory; so does the actor system's <c>CoordinatedShutdown</c>.
/// </remarks>
public sealed partial class StellarStore : IAsyncDisposable, IStoreContext
{
    private const string StoreActorConfig = """
        akka {
          loglevel = WARNING
          stdout-loglevel = WARNING
          actor.provider = local
          coordinated-shutdown.run-by-clr-shutdown-hook = off
        }
        """;

    /// <summary>How long a load waits for the guardian to start or stop a writer, which it does at once while the store is open.</summary>
    private static readonly TimeSpan GuardianTimeout = TimeSpan.FromSeconds(30);

    private static int s_storeCounter;

    private readonly IStorage _storage;
    private readonly IDisposable _lock;
    private readonly ManifestStore _manifest;
    private readonly BlockCodec _codec;
    private readonly AesGcmBlockCipher? _cipher;
    private readonly Dictionary<string, ShardChain> _chains;
    private readonly Dictionary<string, Task<object>> _collections = new(StringComparer.Ordinal);
    private readonly List<IWriterHandle> _writers = new();
    private readonly List<Compactor> _compactors = new();

    /// <summary>Each loaded collection's <see cref="CollectionEngine{TKey,TValue}.SaveIndexOrders"/>, run at a clean close.</summary>
    private readonly List<Action> _indexOrderSavers = new();

    /// <summary>Each loaded collection's writer status and compactor, for <see cref="GetCollectionHealth"/>.</summary>
    private readonly List<(string Name, WriterStatus Writer, Compactor Compactor)> _health = new();

    /// <summary>Each collection's background removal of expired records, stopped at close before the writers.</summary>
    private readonly List<IAsyncDisposable> _sweepers = new();
    /// <summary>The committed ends change feeds wait at: told at close, so that no feed waits on a closed store.</summary>
    private readonly List<Feed.ChangeFeedTail> _feedTails = new();
    private readonly ActorSystem _system;
    private readonly bool _ownsSystem;
    private readonly IActorRef _guardian;
    private readonly StrongBox<StellarStore?> _shutdownHook;
    private readonly object _gate = new();
    private readonly StoreUnits _units;
    private readonly StoreDiagnostics _diagnostics;

    /// <summary>Each loaded collection's registration with the store's gauges, ended at close.</summary>
    private readonly List<IDisposable> _observations = new();

    /// <summary>How the user's collections serialize: <see cref="StoreOptions.Serializer"/> in front of the store's own resolvers.</summary>
    private readonly RecordSerializer _serializer;

    /// <summary>The time by which every collection and snapshot of the store decides what has expired (see <see cref="ExpiryClock"/>).</summary>
    private readonly ExpiryClock _clock;

    /// <summary>The store's collection of cursors once loaded: what a compaction's begin reads holds from, never loading it.</summary>
    private volatile Collection<string, FeedCursorRecord>? _feedCursors;
    private Task? _disposeTask;
    private int _disposed;

    private StellarStore(string path, StoreOptions options, IStorage storage, StoreRecovery.Opened opened, StoreDiagnostics diagnostics, string? view)
    {
        _diagnostics = diagnostics;
        _view = view;
        Path = path;
        Options = options.WithoutSecrets();
        _clock = new ExpiryClock(Options.Clock);
        _storage = storage;
        _lock = opened.Lock;
        _manifest = opened.Manifest;
        _codec = opened.Codec;
        _cipher = opened.Cipher;
        _chains = opened.Chains;
        Recovery = opened.Report;
        _serializer = RecordSerializer.For(options.Serializer);
        _ownsSystem = options.ActorSystem is null;
        try
        {
            _system = options.ActorSystem ?? CreateActorSystem(diagnostics.LoggerFactory);
            _guardian = _system.ActorOf(options.DedicatedThreads ? StoreGuardian.DedicatedProps(_system) : StoreGuardian.Props(), $"stellar-store-{Interlocked.Increment(ref s_storeCounter)}");
            _units = new StoreUnits(this, _system, $"stellar-units-{Interlocked.Increment(ref s_storeCounter)}", options, OpenUnitLog);
        }
        catch
        {
            // A caller's system that is terminating refuses the store's actors: what recovery opened (the directory's
            // lock among it) is let go, else no later open, in this process or the next, could take the store.
            if (_ownsSystem)
            {
                _system?.Terminate();
            }
            else if (_guardian is not null)
            {
                _guardian.Tell(PoisonPill.Instance);
            }

            opened.Release();
            throw;
        }

        // A caller's system may outlive this store by far (Akka.Hosting) and never forgets a task, so the task
        // reaches the store only through a box that closing empties; else every closed store would stay in memory.
        var hook = _shutdownHook = new StrongBox<StellarStore?>(this);
        CoordinatedShutdown.Get(_system).AddTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate, "stellar-store-close", async () =>
        {
            // When the store itself is closing (and terminating its own system), there is nothing left to do here.
            if (Volatile.Read(ref hook.Value) is { } store && Volatile.Read(ref store._disposed) == 0)
            {
                await store.CloseAsync(terminateSystem: false).ConfigureAwait(false);
            }

            return Akka.Done.Instance;
        });
    }

    /// <summary>The store directory.</summary>
    public string Path { get; }

    /// <summary>
    /// The options the store was opened with, except <see cref="StoreOptions.EncryptionKey"/> and
    /// <see cref="StoreOptions.EncryptionPassphrase"/>, which are null here: the store keeps no reference to the
    /// caller's secrets.
    /// </summary>
    public StoreOptions Options { get; }

    /// <summary>What recovery found and did at open.</summary>
    public RecoveryReport Recovery { get; }

    /// <summary>
    /// The generation of the manifest now: it grows by one with every change of the store's manifest (a new
    /// collection, a shard roll, a compaction). Record it after <see cref="FlushAsync"/> or dispose, and compare it
    /// with <see cref="RecoveryReport.ManifestGeneration"/> at the next open to tell an older copy of the store
    /// directory (a restored backup, a rolled-back save folder) from the latest: nothing inside the directory can.
    /// </summary>
    /// <remarks>Thread safety: may be read from any thread.</remarks>
    public ulong ManifestGeneration => _manifest.Generation;

    /// <summary>
    /// Opens the store at <paramref name="path"/>, creating it when the directory holds none. Verifies every block
    /// (a torn tail of an active shard is cut and reported in <see cref="Recovery"/>).
    /// </summary>
    /// <exception cref="StoreLockedException">The store is open elsewhere, in this process or another.</exception>
    /// <exception cref="IncompatibleFormatException">The store was written by a newer format.</exception>
    /// <exception cref="WrongKeyException">The key or passphrase does not match the store's encryption.</exception>
    /// <exception cref="CorruptBlockException">A committed block is damaged; the store refuses to open.</exception>
    /// <exception cref="CorruptStoreException">The manifest is damaged or missing, or a shard it lists is missing.</exception>
    public static Task<StellarStore> OpenAsync(string path, StoreOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        options ??= new StoreOptions();
        options.Validate();
        cancellationToken.ThrowIfCancellationRequested();
        var fullPath = System.IO.Path.GetFullPath(path);
        return Task.Run(() => Open(fullPath, new FileStorage(fullPath, writebackOffThePool: options.DedicatedThreads), options), cancellationToken);
    }

    /// <summary>
    /// Opens the store kept in <paramref name="storage"/>: the seam through which tests run the whole store on an
    /// in-memory or fault-injecting storage. The store does not dispose <paramref name="storage"/>.
    /// </summary>
    internal static Task<StellarStore> OpenAsync(IStorage storage, StoreOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(storage);
        options ??= new StoreOptions();
        options.Validate();
        cancellationToken.ThrowIfCancellationRequested();
        return Task.Run(() => Open(storage.Location, storage, options), cancellationToken);
    }

    /// <summary>
    /// Applies the writes <paramref name="build"/> adds, to any collections of this store, atomically: after a crash
    /// they are all there or none is, and no <see cref="Snapshot"/> ever holds some of them without the others. Each
    /// collection's writes are checked in order as an atomic batch's are, and if any write anywhere is rejected, the task
    /// fails with that rejection and nothing is stored. Writes to one collection only are that collection's atomic batch.
    /// </summary>
    /// <remarks>
    /// <para>Thread safety: may be called from any thread, concurrently; concurrent units are committed together in
    /// rounds, each collection by its own writer. Order: a unit is applied after every write (and flush) to its
    /// collections made before the call, and before every one made after it, awaited or not, as a collection's own writes
    /// are; a later write to one of its collections waits meanwhile for the unit's outcome.</para>
    /// <para>When the task completes, every write is visible in every collection and as durable as the store's
    /// <see cref="Durability"/> promises; in <see cref="Durability.Fsync"/> mode a unit survives a power loss whole. In
    /// <see cref="Durability.WriteThrough"/> mode it survives a crash of the process whole; a power loss, which may lose
    /// acknowledged writes in that mode, may also keep the unit's writes to some collections and not to others. In
    /// <see cref="Durability.Buffered"/> mode a crash of the process keeps a unit whole or drops it whole, and a completed
    /// <see cref="FlushAsync"/> makes every unit acknowledged before it survive a power loss whole; a power loss before
    /// that flush completes may keep part of a unit, as in <see cref="Durability.WriteThrough"/> mode.</para>
    /// <para>Reads of one collection (<see cref="Collection{TKey,TValue}.Get"/>, its snapshots) see the unit's writes
    /// to that collection whole; a reader that must see the unit whole across collections reads a <see cref="Snapshot"/>.</para>
    /// </remarks>
    /// <exception cref="ArgumentException">A collection belongs to another store, or one collection's writes take more
    /// than its <see cref="Collection{TKey,TValue}.MaxBatchBytes"/>; nothing is stored.</exception>
    /// <exception cref="IOException">The first write across collections could not save the store's unit log (a manifest
    /// replace failed): nothing was stored, and the next call tries again.</exception>
    /// <exception cref="StoreFaultedException">Storage failed while the unit was written: its outcome is uncertain, and
    /// each collection it touched is faulted; reopening the store recovers the unit whole or not at all.</exception>
    /// <exception cref="InvalidOperationException">The store was opened read-only (a checkpoint), even for an empty unit.</exception>
    public async Task WriteAsync(Action<StoreWriteBatch> build, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(build);
        cancellationToken.ThrowIfCancellationRequested();
        ThrowIfDisposed();
        ThrowIfReadOnly();
        var batch = new StoreWriteBatch(this);
        List<IUnitBatch> parts;
        try
        {
            build(batch);
            parts = batch.Batches.Where(b => b.Count > 0).ToList();
            foreach (var part in parts)
            {
                part.CheckSize(nameof(build));
            }
        }
        catch
        {
            foreach (var part in batch.Batches)
            {
                part.Release();
            }

            throw;
        }

        if (parts.Count <= 1)
        {
            if (parts.Count == 1)
            {
                await parts[0].SubmitAloneAsync(cancellationToken).ConfigureAwait(false);
            }

            return;
        }

        await _units.WriteAsync(parts, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Pins one consistent cut across every collection open now (see <see cref="StoreSnapshot"/>): a write across
    /// collections is in it whole or not at all, and every write whose task completed before the call is in it.
    /// Never blocks.
    /// </summary>
    public StoreSnapshot Snapshot()
    {
        ThrowIfDisposed();
        return _units.Snapshot();
    }

    /// <summary>
    /// Completes when every write queued before the call is stored and durable on the device (fsync), whatever the
    /// durability mode: in <see cref="Durability.Buffered"/> mode this is what makes writes durable. A write is queued
    /// before its call returns, awaited or not, unless it is waiting for room in a full queue. A write the store
    /// rejected is not stored, and the flush says nothing about it. A write across collections made before the call,
    /// awaited or not, is waited for and flushed whole, with its decision.
    /// </summary>
    /// <remarks>
    /// Thread safety: any thread. Fails with the first collection's failure (<see cref="StoreFaultedException"/>), or
    /// <see cref="ObjectDisposedException"/> once the store is closing. With <see cref="StoreOptions.DedicatedThreads"/>
    /// it completes however many pool threads wait for it: each step after a collection's flush starts on the thread
    /// that finished it.
    /// </remarks>
    public Task FlushAsync()
    {
        if (IsDisposed)
        {
            return Task.FromException(new ObjectDisposedException(GetType().FullName));
        }

        // A collection's flush waits for the units in flight on it; their decisions are recorded by then, and the unit
        // log is flushed after, so that no part is flushed without its decision.
        var log = _units.LogWriter;
        var flush = new StoreFlush(Writers().Where(w => !ReferenceEquals(w, log)).ToList(), log);
        return flush.Task;
    }

    /// <summary>
    /// Compacts every open collection (see <see cref="Collection{TKey,TValue}.CompactAsync"/>), one after another.
    /// Writers and readers keep going meanwhile.
    /// </summary>
    /// <exception cref="InvalidOperationException">The store was opened read-only (a checkpoint): its files are not rewritten.</exception>
    public async Task CompactAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        ThrowIfReadOnly();
        List<Compactor> compactors;
        lock (_gate)
        {
            compactors = _compactors.ToList();
        }

        foreach (var compactor in compactors)
        {
            await compactor.CompactAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Whether each collection loaded since open can take writes: faulted or not, and the last automatic compaction's
    /// error, in the order the collections were loaded. A collection counts from the moment its first
    /// <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/> returns. The store's log of writes across collections, <c>$units</c>, is
    /// listed once the store has one, faulted also when those writes are refused because their coordinator failed.
    /// Meant for health checks, such as the one in Stellar.Store.Hosting.
    /// </summary>
    /// <remarks>
    /// Thread safety: may be called from any thread at any time, also while writes run; never blocks on a writer. Each entry is
    /// as of the call: a fault or a compaction error that happens after it shows in the next call. After disposal it
    /// still answers with the state the collections were left in.
    /// </remarks>
    public IReadOnlyList<CollectionHealth> GetCollectionHealth()
    {
        lock (_gate)
        {
            return _health.Select(h => new CollectionHealth(h.Name, FaultOf(h.Name, h.Writer), h.Compactor.LastError)).ToList();
        }
    }

    /// <summary>The exception a collection's writes fail with, or null; the unit log's also when the units' coordinator faulted.</summary>
    private Exception? FaultOf(string name, WriterStatus writer) =>
        writer.Fault ?? (name == CollectionName.UnitLog ? _units.Status.Fault : null);

    /// <summary>Finishes queued writes, flushes everything to disk, stops the writers and releases the directory.</summary>
    public ValueTask DisposeAsync() => new(CloseAsync(terminateSystem: _ownsSystem));

    /// <summary>Cross-collection rounds committed since open (for the benchmarks' units per round).</summary>
    internal long UnitRounds => _units.VisibleRound;

    /// <summary>What the coordinator of writes across collections shows of its fault: lets tests fault it.</summary>
    internal WriterStatus UnitsStatus => _units.Status;

    /// <summary>The actor system the writers run in, the store's own or the caller's: lets tests log through it.</summary>
    internal ActorSystem ActorSystem => _system;

    /// <summary>The store's cipher, null for a plain store: lets tests watch its key material.</summary>
    internal AesGcmBlockCipher? Cipher => _cipher;

    /// <summary>Whether disposal has begun.</summary>
    bool IStoreContext.IsDisposed => IsDisposed;

    /// <inheritdoc />
    void IStoreContext.ThrowIfReadOnly() => ThrowIfReadOnly();

    private bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    /// <inheritdoc />
    void IStoreContext.ThrowIfDisposed() => ThrowIfDisposed();

    /// <inheritdoc />
    Collection<string, FeedCursorRecord> IStoreContext.FeedCursors() => FeedCursors();

    /// <inheritdoc />
    FeedCursorGates IStoreContext.FeedCursorGates { get; } = new();

    /// <inheritdoc />
    ExpiryClock IStoreContext.Clock => _clock;

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(IsDisposed, this);

    /// <summary>Opens the store at <paramref name="path"/>; <paramref name="view"/> is set for a read-only one (see <see cref="OpenReadOnlyAsync"/>).</summary>
    private static StellarStore Open(string path, IStorage storage, StoreOptions options, string? view = null)
    {
        var diagnostics = new StoreDiagnostics(options);
        using var activity = StoreDiagnostics.StartOpen(path);
        try
        {
            var opened = StoreRecovery.Open(path, storage, options, diagnostics);
            diagnostics.Opened(path, opened.Report, activity);
            return Open(path, storage, options, opened, diagnostics, view);
        }
        catch (Exception e)
        {
            activity?.SetStatus(ActivityStatusCode.Error, e.Message);
            throw;
        }
    }

    /// <summary>
    /// The actor system a store makes for itself: its log goes to <paramref name="loggerFactory"/> (see
    /// <see cref="AkkaLogForwarder"/>) when there is one, else to the console.
    /// </summary>
    private static ActorSystem CreateActorSystem(ILoggerFactory? loggerFactory)
    {
        var config = ConfigurationFactory.ParseString(StoreActorConfig);
        if (loggerFactory is null)
        {
            return ActorSystem.Create("stellar-store", config);
        }

        var forwarding = ConfigurationFactory.ParseString($"akka.loggers = [\"{AkkaLogForwarder.ConfigName}\"]").WithFallback(config);
        return ActorSystem.Create("stellar-store", BootstrapSetup.Create().WithConfig(forwarding).And(new LoggerFactorySetup(loggerFactory)));
    }

    private static StellarStore Open(string path, IStorage storage, StoreOptions options, StoreRecovery.Opened opened, StoreDiagnostics diagnostics, string? view)
    {
        var store = new StellarStore(path, options, storage, opened, diagnostics, view);
        try
        {
            if (opened.Chains.ContainsKey(UnitLog.CollectionName))
            {
                // Before any collection loads: its parts of cross-collection rounds count only where the log decided them.
                store._units.EnsureLog();
                store.SettleUnitLog();
            }

            opened.Manifest.RecordCompression();
        }
        catch
        {
            store.DisposeAsync().AsTask().GetAwaiter().GetResult();
            throw;
        }

        return store;
    }

    /// <summary>
    /// Loads the unit log's collection, or makes it: at open when the store has one, before any other collection. A
    /// format-3 store's log, whose records were <c>(Guid, long)</c> tuples, is recorded with the type that reads them now.
    /// </summary>
    private UnitLog OpenUnitLog()
    {
        _manifest.RetypeValues(UnitLog.CollectionName, TypeName<(Guid Session, long Round)>(), TypeName<UnitDecision>());
        return new UnitLog(Open<Guid, UnitDecision>(UnitLog.CollectionName, UnitLog.SessionOf));
    }

    /// <summary>
    /// At open, once the unit log is loaded and before any other collection: settles the decisions the last sessions
    /// left naming their parts' blocks (see <see cref="UnitLog.Settle"/>). Never on a log in use, whose open decisions
    /// are rounds in flight.
    /// </summary>
    private void SettleUnitLog()
    {
        List<ShardChain> chains;
        lock (_gate)
        {
            chains = _chains.Values.ToList();
        }

        _units.Settle(new PartProbe(chains, _codec, _storage), System.IO.Path.Combine(Path, StoreFileNames.Manifest));
    }
}
