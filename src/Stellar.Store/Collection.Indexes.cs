using System.Collections.Concurrent;
using Stellar.Store.Engine;
using Stellar.Store.Indexes;
using Stellar.Store.Snapshots;

namespace Stellar.Store;

/// <summary>The collection's ordered indexes.</summary>
public sealed partial class Collection<TKey, TValue>
{
    private readonly ConcurrentDictionary<string, object> _indexes = new(StringComparer.Ordinal);

    /// <summary>The handles of the indexes the load could not build, by definition, until <see cref="Index{TIndexKey}(IndexDefinition{TIndexKey,TValue})"/> returns them.</summary>
    private readonly ConcurrentDictionary<IndexDefinition<TValue>, object> _failedAtLoad = new(ReferenceEqualityComparer.Instance);

    /// <summary>
    /// Declares an ordered index named <paramref name="name"/> on the key <paramref name="keySelector"/> computes from
    /// each value, and returns it at once; it is built in order with the writes (it holds every write queued before
    /// this call, and is kept with every write after it), and answers reads once
    /// <see cref="CollectionIndex{TIndexKey,TKey,TValue}.Ready"/> completes. Building reads every record once, on a
    /// thread of its own while the writer goes on taking writes (a unique index: on the writer, which takes no write
    /// meanwhile, so that every write after the declaration is checked). The index lives in memory: declare it again
    /// after reopening the store.
    /// </summary>
    /// <remarks>
    /// <para>With <paramref name="unique"/>, no two records may have equal index keys: a write that would give a record
    /// the index key of another is rejected with <see cref="UniqueConstraintException"/> before anything is stored, and
    /// with it its whole atomic batch or cross-collection write (a record may keep or move to a key another record of
    /// the same batch gives up). Declaring it on records that already share a key fails <c>Ready</c> with that
    /// exception, and the index is not kept. A unique index's key selector that throws rejects the write instead.</para>
    /// <para>Thread safety: any thread. <paramref name="keySelector"/> runs on the writer, for each value written, and
    /// on the build's thread, for each record it reads and most writes made during the build (never on two threads at
    /// once): it must be fast, must not block, and should not throw (a throw stops a non-unique index, not the
    /// write).</para>
    /// </remarks>
    /// <exception cref="ArgumentException">
    /// The name is empty, or the index key or the collection's key has no order of its own (it must implement
    /// <see cref="IComparable{T}"/>; a tuple, in every item).
    /// </exception>
    /// <exception cref="InvalidOperationException">The collection already has an index of that name.</exception>
    public CollectionIndex<TIndexKey, TKey, TValue> Index<TIndexKey>(string name, Func<TValue, TIndexKey> keySelector, bool unique = false) =>
        Index(new IndexDefinition<TIndexKey, TValue>(name, keySelector, unique));

    /// <summary>
    /// Declares an ordered index named <paramref name="name"/> under which each record appears once per distinct key
    /// <paramref name="keysSelector"/> gives it (an item under each of its tags; none for an empty or null sequence).
    /// An answer lists a record once per key of it that the answer covers. Built, kept and read as
    /// <see cref="Index{TIndexKey}(string, Func{TValue,TIndexKey}, bool)"/> describes; it cannot be unique.
    /// </summary>
    /// <remarks>Thread safety: any thread. <paramref name="keysSelector"/> runs on the writer, for each value written, and on the build's thread, for each record it reads and most writes made during the build.</remarks>
    /// <exception cref="ArgumentException">The name is empty, or the index key or the collection's key has no order of its own.</exception>
    /// <exception cref="InvalidOperationException">The collection already has an index of that name.</exception>
    public CollectionIndex<TIndexKey, TKey, TValue> IndexMany<TIndexKey>(string name, Func<TValue, IEnumerable<TIndexKey>?> keysSelector) =>
        Index(IndexDefinition.Many<TIndexKey, TValue>(name, keysSelector));

    /// <summary>
    /// The index <paramref name="definition"/> defines on this collection: the one declared with it already (with the
    /// collection's load, when given to <see cref="StellarStore.GetCollection{TKey,TValue}(string, Func{TValue,TKey}, IndexDefinition{TValue}[])"/>,
    /// or by an earlier call), else one declared now, as <see cref="Index{TIndexKey}(string, Func{TValue,TIndexKey}, bool)"/>
    /// and <see cref="IndexMany{TIndexKey}"/> declare one. An index the load could not build (its key selector threw,
    /// or a unique index found two records with one key) is returned once, its <c>Ready</c> failed with why; a call
    /// after that declares it again.
    /// </summary>
    /// <remarks>Thread safety: any thread; calls with one definition at once return one index.</remarks>
    /// <exception cref="ArgumentException">The collection's key has no order of its own.</exception>
    /// <exception cref="InvalidOperationException">The collection has an index of that name from another definition or declaration.</exception>
    public CollectionIndex<TIndexKey, TKey, TValue> Index<TIndexKey>(IndexDefinition<TIndexKey, TValue> definition)
    {
        ArgumentNullException.ThrowIfNull(definition);
        _store.ThrowIfDisposed();
        if (DeclaredFrom(definition) is { } declared)
        {
            return declared;
        }

        if (_failedAtLoad.TryRemove(definition, out var failed))
        {
            return (CollectionIndex<TIndexKey, TKey, TValue>)failed;
        }

        return Declare(definition, definition.Create(Name, _engine.IndexOrders, IndexOrder.Of<TKey>("The collection's key")));
    }

    /// <summary>Declares each of <paramref name="definitions"/> the collection does not have yet, but those its load could not build.</summary>
    internal void DeclareAll(IReadOnlyList<IndexDefinition<TValue>> definitions)
    {
        foreach (var definition in definitions)
        {
            if (!_failedAtLoad.ContainsKey(definition))
            {
                definition.Declare(this);
            }
        }
    }

    /// <summary>
    /// At the load, before the collection is handed out: <paramref name="index"/> of <paramref name="definition"/> was
    /// built with the load and is kept (<paramref name="failure"/> null), or was not, for that reason.
    /// </summary>
    internal void AttachLoaded<TIndexKey>(IndexDefinition<TIndexKey, TValue> definition, OrderedIndex<TIndexKey, TKey, TValue> index, Exception? failure)
    {
        var handle = new CollectionIndex<TIndexKey, TKey, TValue>(this, index, failure is null ? Task.CompletedTask : Task.FromException(failure), definition);
        if (failure is null)
        {
            _indexes[definition.Name] = handle;
        }
        else
        {
            _failedAtLoad[definition] = handle;
        }
    }

    /// <summary>The index declared under <paramref name="definition"/>'s name, if it was declared from that definition.</summary>
    private CollectionIndex<TIndexKey, TKey, TValue>? DeclaredFrom<TIndexKey>(IndexDefinition<TIndexKey, TValue> definition) =>
        _indexes.TryGetValue(definition.Name, out var declared) && declared is CollectionIndex<TIndexKey, TKey, TValue> index && ReferenceEquals(index.Definition, definition)
            ? index
            : null;

    /// <summary>Registers <paramref name="index"/> under its definition's name and queues its build on the writer.</summary>
    private CollectionIndex<TIndexKey, TKey, TValue> Declare<TIndexKey>(IndexDefinition<TIndexKey, TValue> definition, OrderedIndex<TIndexKey, TKey, TValue> index)
    {
        var ready = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var declared = new CollectionIndex<TIndexKey, TKey, TValue>(this, index, ready.Task, definition);
        if (!_indexes.TryAdd(definition.Name, declared))
        {
            return DeclaredFrom(definition) ?? throw new InvalidOperationException($"Collection '{Name}' already has an index named '{definition.Name}'.");
        }

        // Queued now, in order with the writes before and after this call; what follows it waits on a thread of its own.
        var build = new IndexStep<TKey, TValue>(index, IndexStepKind.Build);
        Task submitted;
        try
        {
            submitted = _writer.SubmitAsync(build, CancellationToken.None);
        }
        catch (Exception e)
        {
            submitted = Task.FromException(e);
        }

        _ = Task.Factory.StartNew(
            () => AwaitBuild(declared, ready, build, submitted),
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);
        return declared;
    }

    /// <summary>
    /// Waits for the build step <paramref name="build"/> of <paramref name="declared"/>'s index (queued as
    /// <paramref name="submitted"/>) and, for one built beside the writer, for the build, then queues its install and
    /// waits for it; completes <paramref name="ready"/> when the index answers, or with why it never will (then the name
    /// is free again). On a thread of its own, blocked while it waits: no step needs a thread of the pool, so a game
    /// whose pool threads all wait for <c>Ready</c> still gets it (with <see cref="StoreOptions.DedicatedThreads"/>).
    /// </summary>
    private void AwaitBuild<TIndexKey>(CollectionIndex<TIndexKey, TKey, TValue> declared, TaskCompletionSource ready, IndexStep<TKey, TValue> build, Task submitted)
    {
        var index = declared.Index;
        Exception? failure;
        try
        {
            submitted.GetAwaiter().GetResult();
            if (build.Aside is { } aside)
            {
                // Whatever the build's outcome, the writer takes it at the install: it holds the versions applied meanwhile.
                Task.WaitAny(aside.Build);
                _writer.SubmitAsync(new IndexStep<TKey, TValue>(index, IndexStepKind.Install) { Aside = aside }, CancellationToken.None).GetAwaiter().GetResult();
                failure = index.Failure ?? aside.Build.Exception?.GetBaseException();
            }
            else
            {
                failure = index.Failure;
            }
        }
        catch (Exception e)
        {
            failure = e;
        }

        if (failure is null)
        {
            ready.SetResult();
            return;
        }

        // Not kept: the name is free for a corrected declaration.
        _indexes.TryRemove(new KeyValuePair<string, object>(declared.Name, declared));
        ready.SetException(failure);
    }

    /// <summary>
    /// Stops keeping <paramref name="index"/> and frees its name. Completes once the writer has dropped it; reads of
    /// it taken before go on answering at their versions. Thread safety: any thread.
    /// </summary>
    public async Task DropIndexAsync<TIndexKey>(CollectionIndex<TIndexKey, TKey, TValue> index)
    {
        ArgumentNullException.ThrowIfNull(index);
        if (!ReferenceEquals(index.Collection, this) || !_indexes.TryRemove(new KeyValuePair<string, object>(index.Name, index)))
        {
            throw new ArgumentException($"Index '{index.Name}' is not an index of collection '{Name}'.", nameof(index));
        }

        index.Index.MarkDropped();
        await _writer.SubmitAsync(new IndexStep<TKey, TValue>(index.Index, IndexStepKind.Drop), CancellationToken.None).ConfigureAwait(false);
    }

    /// <summary>Whether <paramref name="map"/> is this collection's.</summary>
    internal bool Holds(VersionedMap<TKey, TValue> map) => ReferenceEquals(_map, map);
}
