using System.Diagnostics;
using Akka.Actor;
using Stellar.Store.Actors;
using Stellar.Store.Codecs;
using Stellar.Store.Engine;
using Stellar.Store.Feed;
using Stellar.Store.Format;
using Stellar.Store.Indexes;
using Stellar.Store.Shards;
using Stellar.Store.Units;

namespace Stellar.Store;

/// <summary>Collections: getting one, and its load from the verified blocks on first use after open.</summary>
public sealed partial class StellarStore
{
    /// <summary>
    /// The collection <paramref name="name"/> of <typeparamref name="TValue"/> keyed by
    /// <paramref name="keySelector"/>, created on first use and loaded from disk (decoded in parallel) on the first
    /// call after open. Calling it again with the same name returns the same collection, which keeps the key selector
    /// of its first call: a later call's selector is not used (keys are the records' identity, so a collection has one).
    /// </summary>
    /// <remarks>
    /// The load runs on the calling thread, outside the store's lock: other collections, <see cref="FlushAsync"/>,
    /// <see cref="CompactAsync"/> and disposal go on meanwhile (disposal waits for the load to end). A concurrent
    /// call for the same name waits for the load and returns its collection, or throws what the load threw.
    /// </remarks>
    /// <exception cref="ArgumentException">The name breaks the naming rule, or a type cannot be serialized.</exception>
    /// <exception cref="InvalidOperationException">The collection exists with other key or value types.</exception>
    /// <exception cref="CorruptBlockException">A record of the collection does not decode as <typeparamref name="TKey"/> and
    /// <typeparamref name="TValue"/>; nothing is registered, and the next call loads again.</exception>
    public Collection<TKey, TValue> GetCollection<TKey, TValue>(string name, Func<TValue, TKey> keySelector)
        where TKey : notnull
    {
        CheckCollectionArguments(name, keySelector);
        return Open(name, keySelector);
    }

    /// <summary>
    /// <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/>, with the ordered indexes
    /// <paramref name="indexes"/> defines declared on the collection. When this call loads the collection, the load
    /// builds them once the records are loaded, side by side on the store's cores and before the collection's writer
    /// takes anything, and the collection is returned with them built; when the collection was loaded already (or
    /// another call is loading it), each it does not have yet is declared as
    /// <see cref="Collection{TKey,TValue}.Index{TIndexKey}(IndexDefinition{TIndexKey,TValue})"/> declares it, and is
    /// built in the background. Get each index's handle with that method.
    /// </summary>
    /// <remarks>
    /// <para>An index the load could not build (its key selector threw for a stored record, or a unique index found two
    /// records with one key) is not kept, and does not fail the load: its handle's <c>Ready</c> says why.</para>
    /// <para>Thread safety and the load: as <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/>.</para>
    /// </remarks>
    /// <exception cref="ArgumentException">The name breaks the naming rule, a type cannot be serialized, two definitions
    /// share a name, or the collection's key has no order of its own (indexes need one).</exception>
    /// <exception cref="InvalidOperationException">The collection exists with other key or value types, or has an index
    /// of a definition's name declared otherwise.</exception>
    /// <exception cref="CorruptBlockException">A record does not decode; nothing is registered.</exception>
    public Collection<TKey, TValue> GetCollection<TKey, TValue>(string name, Func<TValue, TKey> keySelector, params IndexDefinition<TValue>[] indexes)
        where TKey : notnull
    {
        CheckCollectionArguments(name, keySelector);
        CheckIndexes<TKey, TValue>(indexes);
        var collection = Opened<TKey, TValue>(name, Begin(name, keySelector, null, static load => load(), indexes).GetAwaiter().GetResult());
        collection.DeclareAll(indexes);
        return collection;
    }

    /// <summary>
    /// <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/> without blocking the caller: the load (decoding on every core, then
    /// starting the collection's writer) runs on the thread pool, and no thread waits for it meanwhile. Calling it
    /// again, or <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/>, with the same name returns the same collection; a call while
    /// the collection loads shares that load.
    /// </summary>
    /// <remarks>
    /// <para>Thread safety: any thread, concurrently with every other member. The arguments, the naming rule, the types'
    /// serializability and a type mismatch with the open collection are checked before the call returns, by the same
    /// code as <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/>, and throw from it.</para>
    /// <para>Cancellation ends the wait, not the load. A token cancelled before the call starts nothing (no collection
    /// is created); one cancelled while the collection loads makes the task throw
    /// <see cref="OperationCanceledException"/> at once, while the load goes on to its end in the background, whole: it
    /// registers the collection, which the next call returns without loading again, or it fails and registers nothing,
    /// so the next call loads again. A load is never left half done.</para>
    /// <para>When the task completes, the collection holds every record stored before the open and takes writes; a new
    /// collection's name and types are in the store's manifest on disk, as <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/> leaves
    /// them. Nothing else is written.</para>
    /// </remarks>
    /// <exception cref="ArgumentException">The name breaks the naming rule, or a type cannot be serialized (thrown by the call).</exception>
    /// <exception cref="InvalidOperationException">The collection exists with other key or value types (thrown by the call
    /// when that collection is loaded, by the task when its load was still running).</exception>
    /// <exception cref="OperationCanceledException">The task's: <paramref name="cancellationToken"/> was cancelled first.</exception>
    /// <exception cref="CorruptBlockException">The task's: a record does not decode; nothing is registered.</exception>
    public Task<Collection<TKey, TValue>> GetCollectionAsync<TKey, TValue>(string name, Func<TValue, TKey> keySelector, CancellationToken cancellationToken = default)
        where TKey : notnull
    {
        CheckCollectionArguments(name, keySelector);
        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled<Collection<TKey, TValue>>(cancellationToken);
        }

        // The load's first part (decoding) is synchronous: it runs on the pool, never on the caller's thread.
        var opening = Begin(name, keySelector, null, Task.Run, []);
        return opening.IsCompletedSuccessfully
            ? Task.FromResult(Opened<TKey, TValue>(name, opening.Result))
            : WaitForAsync<TKey, TValue>(name, opening, [], cancellationToken);
    }

    /// <summary>
    /// <see cref="GetCollectionAsync{TKey,TValue}(string, Func{TValue,TKey}, CancellationToken)"/>, with the ordered
    /// indexes <paramref name="indexes"/> defines declared on the collection, as
    /// <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey}, IndexDefinition{TValue}[])"/> declares them:
    /// built with the load when this call loads the collection (the task completes with them built), else declared on
    /// the loaded collection.
    /// </summary>
    /// <remarks>Thread safety, cancellation and what is durable: as <see cref="GetCollectionAsync{TKey,TValue}(string, Func{TValue,TKey}, CancellationToken)"/>;
    /// a load cancelled while it runs goes on to its end with its indexes.</remarks>
    /// <exception cref="ArgumentException">The name breaks the naming rule, a type cannot be serialized, two definitions
    /// share a name, or the collection's key has no order of its own (thrown by the call).</exception>
    /// <exception cref="InvalidOperationException">The collection exists with other key or value types, or has an index
    /// of a definition's name declared otherwise.</exception>
    /// <exception cref="OperationCanceledException">The task's: <paramref name="cancellationToken"/> was cancelled first.</exception>
    /// <exception cref="CorruptBlockException">The task's: a record does not decode; nothing is registered.</exception>
    public Task<Collection<TKey, TValue>> GetCollectionAsync<TKey, TValue>(string name, Func<TValue, TKey> keySelector, IReadOnlyList<IndexDefinition<TValue>> indexes, CancellationToken cancellationToken = default)
        where TKey : notnull
    {
        CheckCollectionArguments(name, keySelector);
        CheckIndexes<TKey, TValue>(indexes);
        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled<Collection<TKey, TValue>>(cancellationToken);
        }

        return WaitForAsync<TKey, TValue>(name, Begin(name, keySelector, null, Task.Run, indexes), indexes, cancellationToken);
    }

    /// <summary>The checks of the index definitions given with a collection: none null, no two of one name, and a collection key with an order.</summary>
    private static void CheckIndexes<TKey, TValue>(IReadOnlyList<IndexDefinition<TValue>> indexes)
    {
        ArgumentNullException.ThrowIfNull(indexes);
        if (indexes.Count == 0)
        {
            return;
        }

        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (var index in indexes)
        {
            if (index is null)
            {
                throw new ArgumentException("An index definition is null.", nameof(indexes));
            }

            if (!names.Add(index.Name))
            {
                throw new ArgumentException($"Two index definitions are named '{index.Name}'.", nameof(indexes));
            }
        }

        _ = IndexOrder.Of<TKey>("The collection's key");
    }

    /// <summary>
    /// The collection <paramref name="name"/> as the manifest records it, <paramref name="keyType"/> and
    /// <paramref name="valueType"/> (created with those names when there is none), read and written through
    /// <typeparamref name="TKey"/> and <typeparamref name="TValue"/>: stand-ins that read and write the recorded types'
    /// MessagePack bytes as they are, for the <c>stellar</c> tool, which lacks the CLR types of the collections it
    /// imports into, salvages and compacts.
    /// </summary>
    /// <exception cref="InvalidOperationException">The collection exists with other recorded types.</exception>
    internal Collection<TKey, TValue> GetCollectionRecordedAs<TKey, TValue>(string name, Func<TValue, TKey> keySelector, string keyType, string valueType)
        where TKey : notnull
    {
        CheckCollectionArguments(name, keySelector);
        return Open(name, keySelector, (keyType, valueType));
    }

    /// <summary>
    /// The names of the store's collections, as its manifest lists them now: every collection created in this store,
    /// loaded in this session or not, in the order they were created (the store's own internal collections are left
    /// out). Open one with <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/>.
    /// </summary>
    /// <remarks>Thread safety: any thread; a collection created meanwhile is in the next read.</remarks>
    public IReadOnlyList<string> CollectionNames => RecordedCollections.Select(c => c.Name).ToList();

    /// <summary>The user collections the manifest lists, as (name, key type, value type), in the manifest's order.</summary>
    internal IReadOnlyList<(string Name, string KeyType, string ValueType)> RecordedCollections =>
        _manifest.Collections.Where(c => CollectionName.IsValid(c.Name)).Select(c => (c.Name, c.KeyType, c.ValueType)).ToList();

    /// <summary>The checks of a user's call for a collection, before anything else: its name and key selector.</summary>
    private static void CheckCollectionArguments<TKey, TValue>(string name, Func<TValue, TKey> keySelector)
    {
        CollectionName.Validate(name);
        ArgumentNullException.ThrowIfNull(keySelector);
    }

    /// <summary>
    /// The collection <paramref name="name"/>, loaded on first use; the store's own collections too (no naming rule).
    /// <paramref name="recordedTypes"/> are the type names to record and check instead of the stand-ins' own. The load runs
    /// on the calling thread until it waits for the writer's start.
    /// </summary>
    private Collection<TKey, TValue> Open<TKey, TValue>(string name, Func<TValue, TKey> keySelector, (string Key, string Value)? recordedTypes = null)
        where TKey : notnull =>
        Opened<TKey, TValue>(name, Begin(name, keySelector, recordedTypes, static load => load(), []).GetAwaiter().GetResult());

    /// <summary>
    /// Waits for a load until <paramref name="cancellationToken"/> ends the wait (never the load), then declares each of
    /// <paramref name="indexes"/> the collection does not have.
    /// </summary>
    private static async Task<Collection<TKey, TValue>> WaitForAsync<TKey, TValue>(string name, Task<object> opening, IReadOnlyList<IndexDefinition<TValue>> indexes, CancellationToken cancellationToken = default)
        where TKey : notnull
    {
        var collection = Opened<TKey, TValue>(name, await opening.WaitAsync(cancellationToken).ConfigureAwait(false));
        collection.DeclareAll(indexes);
        return collection;
    }

    /// <summary>The collection a load gave, as the types asked for; a load under other types is a mismatch.</summary>
    private static Collection<TKey, TValue> Opened<TKey, TValue>(string name, object loaded)
        where TKey : notnull =>
        loaded as Collection<TKey, TValue> ?? throw TypeMismatch(name, loaded.GetType().GetGenericArguments());

    /// <summary>
    /// The task of collection <paramref name="name"/>'s load: the one published already (loading, or done), or a new one,
    /// which <paramref name="run"/> starts once the quick part (<see cref="Prepare{TKey,TValue}"/>) is done under the
    /// store's lock. The task is published before the load runs, so that every other call waits for this load instead
    /// of starting one, and a close waits for it too; a load that fails unpublishes it, so the next call loads again.
    /// </summary>
    private Task<object> Begin<TKey, TValue>(string name, Func<TValue, TKey> keySelector, (string Key, string Value)? recordedTypes, Func<Func<Task>, Task> run, IReadOnlyList<IndexDefinition<TValue>> indexes)
        where TKey : notnull
    {
        ThrowIfDisposed();
        TaskCompletionSource<object> load;
        ManifestCollection entry;
        ShardChain chain;
        lock (_gate)
        {
            // Checked again under the lock: a load published after close took its list would never be waited for.
            ThrowIfDisposed();
            if (_collections.TryGetValue(name, out var opening))
            {
                return opening;
            }

            (entry, chain) = Prepare<TKey, TValue>(name, recordedTypes);
            load = new TaskCompletionSource<object>(TaskCreationOptions.RunContinuationsAsynchronously);
            _collections[name] = load.Task;
        }

        // Run outside the lock, which the load needs to register its writer. What run returns never fails: the outcome
        // goes to the published task.
        _ = run(() => CompleteLoadAsync(load, name, entry, chain, keySelector, indexes));
        return load.Task;
    }

    /// <summary>Runs the load and gives its outcome to <paramref name="load"/>, the task every caller waits for; never throws.</summary>
    private async Task CompleteLoadAsync<TKey, TValue>(TaskCompletionSource<object> load, string name, ManifestCollection entry, ShardChain chain, Func<TValue, TKey> keySelector, IReadOnlyList<IndexDefinition<TValue>> indexes)
        where TKey : notnull
    {
        try
        {
            load.SetResult(await LoadAsync(name, entry, chain, keySelector, indexes).ConfigureAwait(false));
        }
        catch (Exception e)
        {
            // A failed load registers nothing, so the next call loads again; callers that waited get this exception.
            lock (_gate)
            {
                _collections.Remove(name);
            }

            load.SetException(e);
            _ = load.Task.Exception;
        }
    }

    /// <summary>
    /// Finds or adds the collection's manifest entry, checks its types, and makes its shard chain: the quick part of
    /// the first <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/>, done under the store's lock.
    /// </summary>
    private (ManifestCollection Entry, ShardChain Chain) Prepare<TKey, TValue>(string name, (string Key, string Value)? recordedTypes)
        where TKey : notnull
    {
        Debug.Assert(Monitor.IsEntered(_gate), "the manifest entry and the chain are made under the store's lock");
        var serializer = SerializerOf(name);
        serializer.EnsureSerializable<TKey>("key");
        serializer.EnsureSerializable<TValue>("value");
        var entry = _manifest.GetOrAddCollection(name, recordedTypes?.Key ?? TypeName<TKey>(), recordedTypes?.Value ?? TypeName<TValue>());
        if (!_chains.TryGetValue(name, out var chain))
        {
            chain = new ShardChain(_storage, _manifest, entry.Id, Options.MaxShardBytes, Options.Durability, _diagnostics.Collection(name));
            _chains[name] = chain;
        }

        return (entry, chain);
    }

    /// <summary>
    /// The store's collection of cursors, loaded (or made) at first use. Records stored as <c>(string, string)</c> tuples,
    /// before cursors could hold compaction, are the same bytes as a record without a hold: the collection is recorded
    /// with the type that reads both.
    /// </summary>
    private Collection<string, FeedCursorRecord> FeedCursors()
    {
        _manifest.RetypeValues(CollectionName.FeedCursors, TypeName<(string Id, string Position)>(), TypeName<FeedCursorRecord>());
        var cursors = Open<string, FeedCursorRecord>(CollectionName.FeedCursors, cursor => cursor.Id);
        _feedCursors = cursors;
        return cursors;
    }

    /// <summary>
    /// Off the writer, before a compaction of collection <paramref name="name"/> begins: loads the store's cursors when
    /// it has some (its manifest lists <c>$cursors</c>) and they are not loaded yet, so a hold works from the open on,
    /// before its consumer starts.
    /// </summary>
    private void LoadCompactionHolds(string name)
    {
        if (_feedCursors is null && !IsReadOnly && CollectionName.IsValid(name) && _manifest.Collections.Any(c => c.Name == CollectionName.FeedCursors))
        {
            FeedCursors();
        }
    }

    /// <summary>
    /// On the writer's turn, as a compaction of collection <paramref name="name"/> begins: the holds of its named cursors
    /// on its compaction, as stored now; none for the store's own collections, or while no cursor is loaded. A cursor
    /// that holds is loaded: a hold's own write loaded it, and a hold stored before the open was loaded by
    /// <see cref="LoadCompactionHolds"/>. Reads the published cursors and never waits.
    /// </summary>
    /// <exception cref="ObjectDisposedException">The store is closing.</exception>
    private List<CompactionHold> CompactionHolds(string name)
    {
        if (!CollectionName.IsValid(name) || _feedCursors is not { } cursors)
        {
            return [];
        }

        var prefix = name + "/";
        return cursors.Query(c => c.HoldBytes != null && c.Id.StartsWith(prefix, StringComparison.Ordinal))
            .Select(c => new CompactionHold(c.Id[prefix.Length..], ChangePosition.Parse(c.Position), c.HoldBytes!.Value))
            .ToList();
    }

    /// <summary>
    /// The name a collection's types are recorded and checked by: namespace-qualified, type arguments included, but
    /// no assembly names or versions (which <see cref="Type.FullName"/> puts in every generic type's name), so a
    /// collection still opens after an assembly version bump, a type moved between assemblies, or a .NET update.
    /// </summary>
    private static string TypeName<T>() => typeof(T).ToString();

    /// <summary>
    /// The user's serializer for a user collection; the store's own for its own collections (the unit log), whose records
    /// no user formatter may change.
    /// </summary>
    private RecordSerializer SerializerOf(string name) => CollectionName.IsValid(name) ? _serializer : RecordSerializer.Default;

    private static InvalidOperationException TypeMismatch(string name, Type[] types) =>
        new($"Collection '{name}' is open as {types[0]} -> {types[1]}; it cannot be opened with other types.");

    /// <summary>
    /// Reads the collection's shards (decoded in parallel) and starts its writer actor: the slow part of the first
    /// <see cref="GetCollection{TKey,TValue}(string, Func{TValue,TKey})"/>, run without the store's lock. Registers the writer and compactor
    /// before completing, so that a close that waited for this load finds them. A load that fails once its writer was
    /// asked for stops what it started (<see cref="AbandonLoadAsync{TKey,TValue}"/>) before it throws, so that the next
    /// call for the collection starts over and meets the same error, or none once its cause is gone.
    /// </summary>
    private async Task<Collection<TKey, TValue>> LoadAsync<TKey, TValue>(string name, ManifestCollection entry, ShardChain chain, Func<TValue, TKey> keySelector, IReadOnlyList<IndexDefinition<TValue>> indexes)
        where TKey : notnull
    {
        Debug.Assert(!Monitor.IsEntered(_gate), "a load holds no store-wide lock, so that flushes, other collections and close go on");
        var serializer = SerializerOf(name);
        var engine = new CollectionEngine<TKey, TValue>(name, chain, _codec, serializer, Options.MaxDegreeOfParallelism, Options.MaxShardBytes, Options.CompactionThreshold, Options.LargeValueThreshold, _units.IsDecided, _clock)
        {
            // An encrypted store keeps no index orders: they would hold the primary keys in the clear. A read-only store
            // keeps none either: it writes nothing, and its directory goes at its close.
            IndexOrders = _cipher is null && !IsReadOnly ? new IndexOrderFiles(_storage, entry.Id, serializer) : null,
            CommitsOffThePool = Options.DedicatedThreads,
        };
        var atLoad = indexes.Select(index => index.Create<TKey>(name, engine.IndexOrders)).ToList();
        var failures = engine.Load(atLoad);
        chain.Diagnostics.Loaded(engine.UndecidedBlocks);
        chain.StartFirstShard();
        var status = new WriterStatus(chain.Diagnostics.Faulted);
        var writerName = $"c{entry.Id}";
        WriterHandle<CollectionWrite<TKey, TValue>, bool>? handle = null;
        Compactor? compactor = null;
        ExpirySweeper<TKey, TValue>? sweeper = null;
        IDisposable? observation = null;
        try
        {
            // With threads of their own the guardian answers at once from its thread, and the load waits for the answer:
            // an await would go on on a pool thread, which a game whose pool threads all wait for GetCollection would never
            // free. With the guardian on the pool, the load awaits, leaving its thread to the guardian.
            var starting = _guardian.Ask<IActorRef>(new GuardianProtocol.StartWriter<CollectionWrite<TKey, TValue>, bool>(writerName, engine, Options.MaxGroupBytes, status), GuardianTimeout);
            var writer = Options.DedicatedThreads ? starting.GetAwaiter().GetResult() : await starting.ConfigureAwait(false);
            handle = new WriterHandle<CollectionWrite<TKey, TValue>, bool>(writer, Options.MaxQueuedWrites, Options.MaxQueuedBytes, static write => write.Release());
            var writes = handle;
            compactor = new Compactor(new CompactionDriver<TKey, TValue>(engine, handle, _units.FlushLogAsync, () => LoadCompactionHolds(name), () => CompactionHolds(name)));

            // A read-only store runs nothing in the background that writes: no compaction, no removal of expired records
            // (reads leave those out by the clock).
            engine.CompactionWanted = IsReadOnly ? null : compactor.StartAutomatic;
            engine.Map.Released = compactor.RequestRelease;
            var collection = new Collection<TKey, TValue>(this, name, keySelector, handle, engine, compactor, Options.CopyOnRead);
            for (var i = 0; i < indexes.Count; i++)
            {
                indexes[i].Attach(collection, atLoad[i], failures[i]);
            }

            sweeper = IsReadOnly ? null : new ExpirySweeper<TKey, TValue>(engine.Map, handle, Options.ExpirySweepInterval);
            observation = chain.Diagnostics.Observe(() => writes.QueuedWrites, () => writes.QueuedBytes, engine.Ledger);

            // Nothing below throws: the collection is registered whole or not at all.
            lock (_gate)
            {
                if (sweeper is not null)
                {
                    _sweepers.Add(sweeper);
                }

                _feedTails.Add(engine.Feed.Tail);
                _compactors.Add(compactor);
                _health.Add((name, status, compactor));
                _writers.Add(handle);
                _observations.Add(observation);
                _indexOrderSavers.Add(engine.SaveIndexOrders);
                AddCutter(name, handle);
                if (name != UnitLog.CollectionName)
                {
                    _units.AddToCuts(engine.Map);
                }
            }

            return collection;
        }
        catch
        {
            observation?.Dispose();
            await AbandonLoadAsync(writerName, handle, compactor, sweeper).ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>
    /// Stops, in the reverse order of their start, what a failed load started once it asked for its writer: the sweeper's
    /// timer, the compactor, the writer itself (whether or not its start was answered; a start that never happened stops
    /// nothing), which nothing was sent to since the collection was never handed out, and the handle's waiting callers.
    /// Completes once the writer's name is free, so that the next load of the collection can start its own.
    /// </summary>
    private async Task AbandonLoadAsync<TKey, TValue>(string writerName, WriterHandle<CollectionWrite<TKey, TValue>, bool>? handle, Compactor? compactor, ExpirySweeper<TKey, TValue>? sweeper)
        where TKey : notnull
    {
        if (sweeper is not null)
        {
            await sweeper.DisposeAsync().ConfigureAwait(false);
        }

        if (compactor is not null)
        {
            await compactor.StopAsync().ConfigureAwait(false);
            compactor.Dispose();
        }

        await _guardian.Ask<GuardianProtocol.WriterStopped>(new GuardianProtocol.StopWriter(writerName), GuardianTimeout).ConfigureAwait(false);
        handle?.Dispose();
    }
}
