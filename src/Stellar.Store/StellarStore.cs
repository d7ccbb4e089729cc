using System.Diagnostics;
using System.Runtime.CompilerServices;
using Akka.Actor;
using Akka.Configuration;
using Stellar.Store.Actors;
using Stellar.Store.Codecs;
using Stellar.Store.Engine;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store;

/// <summary>
/// An open store: a directory of append-only shard files, owned exclusively by this instance until it is
/// disposed. Open one with <see cref="OpenAsync(string, StoreOptions?, CancellationToken)"/>; get collections with <see cref="GetCollection{TKey,TValue}"/>.
/// </summary>
/// <remarks>
/// Thread safety: every member may be called from any thread. Disposing flushes every collection (fsync) and
/// releases the directory; so does the actor system's <c>CoordinatedShutdown</c>.
/// </remarks>
public sealed class StellarStore : IAsyncDisposable
{
    private const string StoreActorConfig = """
        akka {
          loglevel = WARNING
          stdout-loglevel = WARNING
          actor.provider = local
          coordinated-shutdown.run-by-clr-shutdown-hook = off
        }
        """;

    private static int s_storeCounter;

    private readonly IStorage _storage;
    private readonly IDisposable _lock;
    private readonly Manifest _manifest;
    private readonly BlockCodec _codec;
    private readonly AesGcmBlockCipher? _cipher;
    private readonly Dictionary<string, ShardChain> _chains;
    private readonly Dictionary<string, object> _collections = new(StringComparer.Ordinal);
    private readonly List<IWriterHandle> _writers = new();
    private readonly List<Compactor> _compactors = new();
    private readonly ActorSystem _system;
    private readonly bool _ownsSystem;
    private readonly IActorRef _guardian;
    private readonly StrongBox<StellarStore?> _shutdownHook;
    private readonly object _gate = new();
    private readonly uint _nextCollectionId;
    private Task? _disposeTask;
    private int _disposed;

    private StellarStore(string path, StoreOptions options, IStorage storage, IDisposable storeLock, Manifest manifest,
        BlockCodec codec, AesGcmBlockCipher? cipher, Dictionary<string, ShardChain> chains, RecoveryReport recovery, uint nextCollectionId)
    {
        _nextCollectionId = nextCollectionId;
        Path = path;
        Options = options.WithoutSecrets();
        _storage = storage;
        _lock = storeLock;
        _manifest = manifest;
        _codec = codec;
        _cipher = cipher;
        _chains = chains;
        Recovery = recovery;
        _ownsSystem = options.ActorSystem is null;
        _system = options.ActorSystem ?? ActorSystem.Create("stellar-store", ConfigurationFactory.ParseString(StoreActorConfig));
        _guardian = _system.ActorOf(StoreGuardian.Props(), $"stellar-store-{Interlocked.Increment(ref s_storeCounter)}");

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
    public ulong ManifestGeneration
    {
        get
        {
            lock (_manifest)
            {
                return _manifest.Generation;
            }
        }
    }

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
        return Task.Run(() => Open(fullPath, new FileStorage(fullPath), options), cancellationToken);
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
    /// The collection <paramref name="name"/> of <typeparamref name="TValue"/> keyed by
    /// <paramref name="keySelector"/>, created on first use and loaded from disk (decoded in parallel) on the first
    /// call after open. Calling it again with the same name returns the same collection.
    /// </summary>
    /// <exception cref="ArgumentException">The name breaks the naming rule, or a type cannot be serialized.</exception>
    /// <exception cref="InvalidOperationException">The collection exists with other key or value types.</exception>
    public Collection<TKey, TValue> GetCollection<TKey, TValue>(string name, Func<TValue, TKey> keySelector)
        where TKey : notnull
    {
        CollectionName.Validate(name);
        ArgumentNullException.ThrowIfNull(keySelector);
        ThrowIfDisposed();
        lock (_gate)
        {
            if (_collections.TryGetValue(name, out var existing))
            {
                return existing as Collection<TKey, TValue> ?? throw TypeMismatch(name, existing.GetType().GetGenericArguments());
            }

            RecordSerializer<TKey>.EnsureSerializable("key");
            RecordSerializer<TValue>.EnsureSerializable("value");
            var entry = _manifest.Collections.Find(c => c.Name == name);
            if (entry is null)
            {
                entry = new ManifestCollection
                {
                    Name = name,
                    Id = _manifest.Collections.Count == 0 ? 1 : _manifest.Collections.Max(c => c.Id) + 1,
                    KeyType = TypeName<TKey>(),
                    ValueType = TypeName<TValue>(),
                };
                // Past every collection id the directory's files use too: a manifest older than its shards must
                // not give a new collection the files of one it lost.
                entry.Id = Math.Max(entry.Id, _nextCollectionId);
                ChangeManifest(_storage, _manifest, () => _manifest.Collections = [.. _manifest.Collections, entry]);
            }
            else if (entry.KeyType != TypeName<TKey>() || entry.ValueType != TypeName<TValue>())
            {
                throw new InvalidOperationException(
                    $"Collection '{name}' holds {entry.KeyType} -> {entry.ValueType}; it was asked for as {TypeName<TKey>()} -> {TypeName<TValue>()}.");
            }
            else if (!_chains.ContainsKey(name))
            {
                // An earlier call added the entry, but its save failed with an unknown outcome (the entry stays in
                // memory, see ManifestChange): save again before the collection writes its first shard.
                ChangeManifest(_storage, _manifest, static () => { });
            }

            if (!_chains.TryGetValue(name, out var chain))
            {
                chain = new ShardChain(_storage, entry, change => ChangeManifest(_storage, _manifest, change), Options.MaxShardBytes, Options.Durability);
                _chains[name] = chain;
            }

            var engine = new CollectionEngine<TKey, TValue>(name, chain, _codec, Options.MaxDegreeOfParallelism, Options.MaxShardBytes, Options.CompactionThreshold, Options.LargeValueThreshold);
            engine.Load();
            var writer = _guardian.Ask<IActorRef>(new GuardianProtocol.StartWriter<CollectionWrite<TKey, TValue>, bool>($"c{entry.Id}", engine, Options.MaxGroupBytes), TimeSpan.FromSeconds(30)).GetAwaiter().GetResult();
            var handle = new WriterHandle<CollectionWrite<TKey, TValue>, bool>(writer, Options.MaxQueuedWrites, Options.MaxQueuedBytes);
            var compactor = new Compactor(new CompactionDriver<TKey, TValue>(engine, handle));
            engine.CompactionWanted = compactor.StartAutomatic;
            engine.Map.Released = compactor.RequestRelease;
            var collection = new Collection<TKey, TValue>(this, name, keySelector, handle, engine, compactor, Options.CopyOnRead);
            _collections[name] = collection;
            _compactors.Add(compactor);
            _writers.Add(handle);
            return collection;
        }
    }

    /// <summary>
    /// Completes when every write acknowledged before the call is durable on the device (fsync), whatever the
    /// durability mode: in <see cref="Durability.Buffered"/> mode this is what makes writes durable.
    /// </summary>
    public Task FlushAsync()
    {
        ThrowIfDisposed();
        return Task.WhenAll(Writers().Select(w => w.FlushAsync()));
    }

    /// <summary>
    /// Compacts every open collection (see <see cref="Collection{TKey,TValue}.CompactAsync"/>), one after another.
    /// Writers and readers keep going meanwhile.
    /// </summary>
    public async Task CompactAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
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

    /// <summary>Finishes queued writes, flushes everything to disk, stops the writers and releases the directory.</summary>
    public ValueTask DisposeAsync() => new(CloseAsync(terminateSystem: _ownsSystem));

    /// <summary>The store's cipher, null for a plain store: lets tests watch its key material.</summary>
    internal AesGcmBlockCipher? Cipher => _cipher;

    internal void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(IsDisposed, this);

    /// <summary>Whether disposal has begun.</summary>
    internal bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    private static StellarStore Open(string path, IStorage storage, StoreOptions options)
    {
        var stopwatch = Stopwatch.StartNew();
        var storeLock = storage.AcquireLock();
        AesGcmBlockCipher? cipher = null;
        var chains = new Dictionary<string, ShardChain>(StringComparer.Ordinal);

        // The private copy of the caller's key and the derived master key live only while the store opens: the
        // cipher keeps its own copy of the master key, and both are zeroed on every way out of here.
        byte[]? key = null;
        byte[]? masterKey = null;
        try
        {
            key = KeyMaterial.CopyKey(options.EncryptionKey);
            Manifest manifest;
            if (storage.Exists(Manifest.FileName))
            {
                manifest = Manifest.Parse(storage.ReadAllBytes(Manifest.FileName), System.IO.Path.Combine(path, Manifest.FileName));
                if (manifest.Encryption is null && (key is not null || options.EncryptionPassphrase is not null))
                {
                    throw new WrongKeyException($"Store '{path}' is not encrypted, but an encryption key or passphrase was given.");
                }

                if (manifest.Encryption is not null)
                {
                    try
                    {
                        masterKey = KeyMaterial.Unlock(manifest.Encryption, key, options.EncryptionPassphrase);
                    }
                    catch (InvalidDataException e)
                    {
                        throw new CorruptStoreException(System.IO.Path.Combine(path, Manifest.FileName), $"the manifest's encryption parameters are damaged: {e.Message}", e);
                    }

                    cipher = new AesGcmBlockCipher(masterKey);
                    manifest.Authenticate(Manifest.DeriveMacKey(masterKey), System.IO.Path.Combine(path, Manifest.FileName));
                }
            }
            else
            {
                // Shards without a manifest are a damaged store, not an empty one: a new manifest would hide their
                // data, and the first write would overwrite the first shard.
                if (storage.List().Any(name => name.EndsWith(".shard", StringComparison.Ordinal)))
                {
                    throw new CorruptStoreException(System.IO.Path.Combine(path, Manifest.FileName), "the manifest is missing but the directory holds shard files");
                }

                manifest = new Manifest();
                if (key is not null || options.EncryptionPassphrase is not null)
                {
                    (var info, masterKey) = KeyMaterial.Create(key, options.EncryptionPassphrase, options.PassphraseIterations);
                    manifest.Encryption = info;
                    cipher = new AesGcmBlockCipher(masterKey);
                    manifest.MacKey = Manifest.DeriveMacKey(masterKey);
                }
            }

            // Blocks say how they were compressed, so the option may change between opens; it applies to new blocks.
            // A manifest of an older format is rewritten in the current one at once (signed, if the store is
            // encrypted), before anything else can change it.
            var generation = manifest.Generation;
            if (manifest.Compression != (byte)options.Compression || !storage.Exists(Manifest.FileName) || manifest.FormatVersion < Manifest.CurrentFormatVersion)
            {
                manifest.Compression = (byte)options.Compression;
                ChangeManifest(storage, manifest, static () => { });
            }

            var codec = new BlockCodec(options.Compression == Compression.Lz4 ? new Lz4Compressor() : null, new Lz4Compressor(), cipher);
            long blocks = 0, truncated = 0;
            var truncatedShards = new List<string>();
            var removed = new List<string>();
            var known = new HashSet<string>(StringComparer.Ordinal) { Manifest.FileName, "LOCK" };
            foreach (var entry in manifest.Collections)
            {
                var chain = new ShardChain(storage, entry, change => ChangeManifest(storage, manifest, change), options.MaxShardBytes, options.Durability);
                chains[entry.Name] = chain;
                chain.Scan(sealActive: cipher is not null);
                blocks += chain.Blocks.Count;
                truncated += chain.TruncatedBytes;
                truncatedShards.AddRange(chain.TruncatedShards);
                known.UnionWith(entry.Shards.Select(s => ManifestCollection.ShardFileName(entry.Id, s)));
            }

            // Only now that every listed shard of every collection was found and verified: a store that refuses to
            // open must still hold every file it held, whichever manifest a repair would need.
            foreach (var chain in chains.Values)
            {
                chain.RemoveObsoleteFiles();
                removed.AddRange(chain.RemovedFiles);
            }

            var files = storage.List();
            var ignored = files.Where(f => !known.Contains(f)).Order(StringComparer.Ordinal).ToArray();
            var nextCollectionId = files.Select(f => ManifestCollection.TryParseShardFileName(f, ShardChain.CompactingSuffix, out var id, out _) ? id : 0).Append(0u).Max() + 1;
            var report = new RecoveryReport(blocks, truncated, truncatedShards, ignored, removed, stopwatch.Elapsed) { ManifestGeneration = generation };
            return new StellarStore(path, options, storage, storeLock, manifest, codec, cipher, chains, report, nextCollectionId);
        }
        catch
        {
            foreach (var chain in chains.Values)
            {
                chain.Dispose();
            }

            cipher?.Dispose();
            storeLock.Dispose();
            throw;
        }
        finally
        {
            KeyMaterial.Zero(key);
            KeyMaterial.Zero(masterKey);
        }
    }

    /// <summary>
    /// The name a collection's types are recorded and checked by: namespace-qualified, type arguments included, but
    /// no assembly names or versions (which <see cref="Type.FullName"/> puts in every generic type's name), so a
    /// collection still opens after an assembly version bump, a type moved between assemblies, or a .NET update.
    /// </summary>
    private static string TypeName<T>() => typeof(T).ToString();

    private static InvalidOperationException TypeMismatch(string name, Type[] types) =>
        new($"Collection '{name}' is open as {types[0]} -> {types[1]}; it cannot be opened with other types.");

    /// <summary>
    /// Changes the manifest and replaces its file as one step under the manifest's lock (see
    /// <see cref="ManifestChange"/>). Collections roll shards on their own threads: unserialized, two replaces race
    /// on the temporary file. A replace that throws is not undone, since it may have taken effect: the collection
    /// whose change it was faults, and the others go on (their next change writes this one too, see
    /// <see cref="ManifestChange"/>).
    /// </summary>
    private static void ChangeManifest(IStorage storage, Manifest manifest, Action change)
    {
        lock (manifest)
        {
            change();
            storage.ReplaceAtomically(Manifest.FileName, manifest.Serialize());
        }
    }

    private List<IWriterHandle> Writers()
    {
        lock (_gate)
        {
            return _writers.ToList();
        }
    }

    private Task CloseAsync(bool terminateSystem)
    {
        lock (_gate)
        {
            if (_disposeTask is null)
            {
                Volatile.Write(ref _disposed, 1);
                _disposeTask = CloseCoreAsync(terminateSystem);
            }

            return _disposeTask;
        }
    }

    private async Task CloseCoreAsync(bool terminateSystem)
    {
        List<Compactor> compactors;
        lock (_gate)
        {
            compactors = _compactors.ToList();
        }

        var writers = Writers();
        Exception? failure = null;
        try
        {
            await Task.WhenAll(compactors.Select(c => c.StopAsync())).ConfigureAwait(false);
            await Task.WhenAll(writers.Select(w => w.CloseAsync())).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            failure = e;
        }

        foreach (var writer in writers)
        {
            writer.Dispose();
        }

        foreach (var compactor in compactors)
        {
            if (failure is null)
            {
                compactor.DeleteRetired();
            }

            compactor.Dispose();
        }

        foreach (var chain in _chains.Values)
        {
            chain.Dispose();
        }

        _cipher?.Dispose();
        if (_manifest.MacKey is { } macKey)
        {
            System.Security.Cryptography.CryptographicOperations.ZeroMemory(macKey);
        }

        _lock.Dispose();
        _system.Stop(_guardian);
        Volatile.Write(ref _shutdownHook.Value, null);
        if (terminateSystem)
        {
            await _system.Terminate().ConfigureAwait(false);
        }

        if (failure is not null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(failure).Throw();
        }
    }
}
