using System.Diagnostics;
using Stellar.Store.Actors;
using Stellar.Store.Diagnostics;
using Stellar.Store.Codecs;
using Stellar.Store.Feed;
using Stellar.Store.Format;
using Stellar.Store.Indexes;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// The engine of one collection, driven by its writer actor through <see cref="ICommitSink{TWrite,TResult}"/>. It
/// owns nothing but its parts and their wiring: the <see cref="WriteStager{TKey,TValue}"/> checks preconditions and
/// packs blocks, the <see cref="CompactionSteps{TKey,TValue}"/> run a compaction's writer steps, the
/// <see cref="CommitPipeline{TKey,TValue}"/> encodes, appends and publishes, the <see cref="ShardUsageLedger"/>
/// accounts live and dead bytes, the <see cref="CollectionLoader{TKey,TValue}"/> rebuilds the collection at open,
/// and the <see cref="CompactionCopier{TKey,TValue}"/> copies live records off the writer.
/// </summary>
/// <remarks>Thread safety: single-writer by contract (the actor never overlaps two calls); readers use
/// <see cref="Map"/>, which is lock-free. The engine only borrows a write's record buffer, until the write's outcome
/// is reported; it never returns one to the pool (see <see cref="SingleWrite{TKey,TValue}"/>).</remarks>
internal sealed class CollectionEngine<TKey, TValue> : ICommitSink<CollectionWrite<TKey, TValue>, bool>, IWriteStaging<TKey, TValue>
    where TKey : notnull
{
    private readonly string _name;
    private readonly ShardChain _chain;
    private readonly CollectionLoader<TKey, TValue> _loader;
    private readonly WriteStager<TKey, TValue> _stager;
    private readonly CommitPipeline<TKey, TValue> _pipeline;
    private readonly CompactionSteps<TKey, TValue> _compaction;
    private readonly LargeValueReader<TValue> _values;
    private readonly IndexSet<TKey, TValue> _indexes = new();
    private readonly int _parallelism;

    /// <summary>The time (UTC ticks) up to which the group being staged removed the records that had expired (0: not yet).</summary>
    private long _removedUntil;

    /// <summary>The deletes of expired records the group staged on its own, given back once the group has an outcome.</summary>
    private ExpiryStep<TKey, TValue>? _groupExpiry;

    /// <summary>Index steps staged in the group, run at its commit before its blocks.</summary>
    private readonly List<IndexStep<TKey, TValue>> _indexSteps = new();

    /// <summary>Checkpoints' cuts staged in the group, run at its commit before anything else.</summary>
    private readonly List<CheckpointStep<TKey, TValue>> _checkpoints = new();

    /// <summary>
    /// The engine of collection <paramref name="name"/> over <paramref name="chain"/>; <paramref name="decided"/> says
    /// whether a cross-collection round's part found at open was committed (its decision is in the unit log).
    /// </summary>
    public CollectionEngine(string name, ShardChain chain, BlockCodec codec, RecordSerializer serializer, int parallelism, long maxShardBytes, double compactionThreshold, int largeValueBytes, Func<UnitTag, bool> decided, ExpiryClock? clock = null)
    {
        _name = name;
        Serializer = serializer;
        _chain = chain;
        _parallelism = parallelism;
        MaxBlockBytes = codec.MaxRawLength;
        Debug.Assert(
            Collection<TKey, TValue>.MaxKeyBytes + Collection<TKey, TValue>.MaxValueBytes + RecordFormat.PutOverhead <= MaxBlockBytes,
            "a single record of the largest accepted key and value must fit one block");
        Map = new VersionedMap<TKey, TValue>(capacity: CollectionLoader<TKey, TValue>.CapacityFor(chain), clock: clock);
        Map.HorizonMoved = _indexes.Trim;
        Ledger = new ShardUsageLedger(compactionThreshold, Math.Max(maxShardBytes / 16, CompactionCopier<TKey, TValue>.BlockBytes));
        _values = new LargeValueReader<TValue>(chain, codec, serializer);
        _loader = new CollectionLoader<TKey, TValue>(chain, codec, serializer, parallelism, largeValueBytes, decided);
        _stager = new WriteStager<TKey, TValue>(name, Map, _indexes, MaxBlockBytes, largeValueBytes);
        _pipeline = new CommitPipeline<TKey, TValue>(chain, codec, Map, Ledger, _indexes, parallelism, largeValueBytes, new ChangeFeedTail(new FeedTail(0, 0, 0)));
        Feed = new ChangeFeed<TKey, TValue>(name, chain, codec, serializer, _pipeline.Tail, decided);
        _compaction = new CompactionSteps<TKey, TValue>(chain, Map, Ledger, maxShardBytes);
        Copier = new CompactionCopier<TKey, TValue>(name, chain, codec, serializer, Map, _values, parallelism, maxShardBytes);
    }

    public VersionedMap<TKey, TValue> Map { get; }

    /// <summary>Where the collection's change feeds read from: its chain, from the blocks on disk up to the committed end.</summary>
    public ChangeFeed<TKey, TValue> Feed { get; }

    /// <summary>How the collection's keys and values become bytes and back.</summary>
    public RecordSerializer Serializer { get; }

    /// <summary>The most record bytes one block, so one atomic batch, may hold (see <see cref="BlockLimit"/>).</summary>
    public int MaxBlockBytes { get; }

    /// <summary>What the collection reports through (its chain's).</summary>
    public CollectionDiagnostics Diagnostics => _chain.Diagnostics;

    /// <summary>Live and dead bytes per shard.</summary>
    public ShardUsageLedger Ledger { get; }

    /// <summary>The background part of a compaction.</summary>
    public CompactionCopier<TKey, TValue> Copier { get; }

    /// <summary>Raised on the writer after a commit when dead records pass the threshold; the handler must not block.</summary>
    public Action? CompactionWanted { get; set; }

    /// <summary>Raw bytes of every record in the shards, live or dead.</summary>
    public long StoredBytes => Ledger.StoredBytes;

    /// <summary>Raw bytes of the records readers can see.</summary>
    public long LiveBytes => Ledger.LiveBytes;

    /// <summary>Compactions completed since open.</summary>
    public long Compactions => _compaction.Compactions;

    /// <summary>Blocks of cross-collection rounds found at open without a decision, whose records were left out.</summary>
    public long UndecidedBlocks => _loader.UndecidedBlocks;

    /// <summary>The rejection of a batch whose records cannot be stored as one readable block.</summary>
    internal static ArgumentException TooLargeForOneBlock(long bytes, int maxBlockBytes, string paramName) => new(
        $"The batch's records take {bytes} bytes; an atomic batch is stored as one block, which holds at most {maxBlockBytes} bytes. Nothing was stored: split the batch.",
        paramName);

    /// <summary>Where the collection's one-key indexes keep their order between a clean close and the next build; null: nowhere.</summary>
    public IndexOrderFiles? IndexOrders { get; init; }

    /// <summary>
    /// Whether a group that does not commit on the writer's turn (several blocks, a large one, compaction, an index
    /// step, a checkpoint's cut) commits on the collection's device thread, as every group does when each is synced,
    /// rather than on the thread pool: with the writers on threads of their own, so that no commit waits for a pool
    /// thread (see <see cref="StoreOptions.DedicatedThreads"/>).
    /// </summary>
    public bool CommitsOffThePool { get; init; }

    /// <summary>
    /// Once the writer has stopped, at a clean close: each index keeps its order for the next build (see
    /// <see cref="IndexOrderFiles"/>).
    /// </summary>
    public void SaveIndexOrders()
    {
        var published = Map.Published;
        _indexes.SaveOrders(published.Version, published.Count);
    }

    /// <summary>
    /// Rebuilds the collection from the blocks verified at open (see <see cref="CollectionLoader{TKey,TValue}"/>), then
    /// builds <paramref name="indexes"/>, the indexes declared with the load, from the records loaded, side by side on
    /// the store's cores, before the writer takes anything. Returns, for each of them, null when it was built (it is kept
    /// from then on and answers from the loaded version), else why not (it is not kept).
    /// </summary>
    public Exception?[] Load(IReadOnlyList<IIndexMaintainer<TKey, TValue>> indexes)
    {
        var count = _loader.Load(Map, Ledger);
        var now = Map.Clock.Observe();
        if (_loader.LoadedExpiring)
        {
            Map.Expiry.Build(Map, CollectionLoader<TKey, TValue>.LoadVersion, _values.ReadValue, now);
        }

        var failures = new Exception?[indexes.Count];
        SharedLoop.For(indexes.Count, _parallelism, i =>
        {
            try
            {
                if (!indexes[i].Build(Map, CollectionLoader<TKey, TValue>.LoadVersion, _values.ReadValue, now))
                {
                    failures[i] = indexes[i].Failure ?? new InvalidOperationException($"Index '{indexes[i].Name}' was not built.");
                }
            }
            catch (Exception e)
            {
                // What a build did not take as its index's failure (a unique index's comparison, say) is that index's too.
                failures[i] = e;
            }
        });
        for (var i = 0; i < indexes.Count; i++)
        {
            if (failures[i] is null)
            {
                _indexes.Add(indexes[i]);
                indexes[i].Serve(CollectionLoader<TKey, TValue>.LoadVersion);
            }
        }

        _pipeline.Loaded(CollectionLoader<TKey, TValue>.LoadVersion);
        _stager.Loaded(count);

        // Every sequence below the next one is committed (or a part left out); after a compaction with nothing written
        // since, that is past the last block's.
        _pipeline.Tail.Advance(_chain.Blocks.Count == 0
            ? new FeedTail(_chain.NextSequence, 0, 0)
            : new FeedTail(_chain.NextSequence, _chain.Blocks[^1].ShardId, _chain.Blocks[^1].Offset + _chain.Blocks[^1].Header.BlockLength));
        return failures;
    }

    /// <inheritdoc cref="LargeValueReader{TValue}.ReadValue"/>
    public TValue ReadValue(VersionNode<TValue> node) => _values.ReadValue(node);

    /// <summary>Deletes every compacted shard still kept for old snapshots; only once the writer has stopped.</summary>
    public void DeleteAllRetired() => _compaction.DeleteAllRetired();

    public Exception? Stage(CollectionWrite<TKey, TValue> write, out bool result) => write.StageInto(this, out result);

    /// <summary>
    /// An index step shares its group with no write: an index is built from the records as published, and every write
    /// after it is checked against it (a unique index) and kept in it. Index steps queued one after another share a
    /// group, so indexes declared together are built side by side (see <see cref="RunIndexSteps"/>). A checkpoint's cut
    /// stands alone too, so that it falls between two groups of writes.
    /// </summary>
    public bool StandsAlone(CollectionWrite<TKey, TValue> write) => write is IndexStep<TKey, TValue> or CheckpointStep<TKey, TValue>;

    Exception? IWriteStaging<TKey, TValue>.StageSingle(SingleWrite<TKey, TValue> write, out bool existed)
    {
        RemoveExpiredFirst();
        return _stager.StageSingle(write, out existed);
    }

    Exception? IWriteStaging<TKey, TValue>.StageBatch(BatchWrite<TKey, TValue> batch)
    {
        RemoveExpiredFirst();
        return _stager.StageBatch(batch);
    }

    Exception? IWriteStaging<TKey, TValue>.StagePart(UnitPartWrite<TKey, TValue> part)
    {
        RemoveExpiredFirst();
        return _stager.StagePart(part);
    }

    public void Unstage() => _stager.Unstage();

    public void PublishPart(long round) => _pipeline.PublishPart(round);

    public void EndPart() => _pipeline.EndPart();

    void IWriteStaging<TKey, TValue>.StageCompaction(CompactionStep<TKey, TValue> step) => _compaction.Stage(step);

    void IWriteStaging<TKey, TValue>.StageIndex(IndexStep<TKey, TValue> step) => _indexSteps.Add(step);

    void IWriteStaging<TKey, TValue>.StageExpiry(ExpiryStep<TKey, TValue> step) => StageExpired(step, Map.Clock.Observe());

    void IWriteStaging<TKey, TValue>.StageCheckpoint(CheckpointStep<TKey, TValue> step) => _checkpoints.Add(step);

    /// <summary>
    /// Before a write is checked: stages the delete of every record that has expired since the group last looked, so
    /// that the group's checks (a key that is missing, a unique index key that is free) meet no expired record still
    /// stored, and a collection under writes removes its expired records as it goes. Costs one test while no record
    /// expires, and a look at the first expiry times while some do.
    /// </summary>
    private void RemoveExpiredFirst()
    {
        if (Map.Expiry.Empty)
        {
            return;
        }

        var now = Map.Clock.Observe();
        if (now > _removedUntil)
        {
            _groupExpiry ??= new ExpiryStep<TKey, TValue>();
            StageExpired(_groupExpiry, now);
        }
    }

    /// <summary>After the group has an outcome: the next group looks for expired records again, and this one's deletes give back their buffers.</summary>
    private void EndGroup()
    {
        _removedUntil = 0;
        _groupExpiry?.Release();
        _groupExpiry = null;
    }

    private void StageExpired(ExpiryStep<TKey, TValue> step, long now)
    {
        _removedUntil = Math.Max(_removedUntil, now);
        foreach (var (key, node) in Map.Expiry.Due(now))
        {
            // Only a record still as it was when it expired: a write staged in this group replaces it anyway.
            if (!_stager.Staged(key) && ReferenceEquals(Map.Head(key), node) && !node.LiveAt(now))
            {
                var rejection = _stager.StageSingle(step.Delete(key, Serializer), out _);
                Debug.Assert(rejection is null, "a delete of a stored key breaks no precondition");
            }
        }
    }

    void IWriteStaging<TKey, TValue>.StageRelease(ReleaseStep<TKey, TValue> step)
    {
        // Nothing to stage: committing the group publishes once more, which cuts what released snapshots held, and
        // runs the compaction steps' deletion of shards no snapshot needs any more.
    }

    /// <summary>
    /// Commits on the caller's (the writer actor's) turn when the group is one block of at most
    /// <see cref="WriteStager{TKey,TValue}.TargetBlockBytes"/>, ends without an fsync and has no compaction step: such a
    /// commit is one small encode and one <c>write()</c>, cheaper than the two thread hops of running it elsewhere and
    /// reporting back, which made up most of a single awaited write's latency. Anything larger, an fsync or a
    /// compaction's file work runs elsewhere, so the actor's thread never waits on the device for long: a group that
    /// ends with an fsync on the collection's device thread (see <see cref="DeviceThread"/>), the rest on the thread pool.
    /// </summary>
    public Task CommitAsync(Action<IReadOnlyList<PartBlock>>? partPlaced)
    {
        if (!CommitsInline())
        {
            return _chain.SyncsEachGroup || CommitsOffThePool ? _chain.RunOnDeviceThreadAsync(() => Commit(partPlaced)) : Task.Run(() => Commit(partPlaced));
        }

        try
        {
            Commit(partPlaced);
            return Task.CompletedTask;
        }
        catch (Exception e)
        {
            return Task.FromException(e);
        }
    }

    public void Discard()
    {
        EndGroup();
        _stager.Discard();
        _compaction.Discard();
        _indexSteps.Clear();
        _checkpoints.Clear();
    }

    public Task FlushAsync() => _chain.RunOnDeviceThreadAsync(_chain.Flush);

    public Exception Fault(Exception cause) => cause is StoreFaultedException faulted
        ? faulted
        : new StoreFaultedException(
            $"Collection '{_name}' is faulted: a write failed in storage ({cause.Message}). Writes that were not acknowledged may or may not be on disk; reopen the store to recover every acknowledged write.",
            cause);

    private bool CommitsInline()
    {
        var blocks = _stager.Blocks;
        return blocks.Count == 1 && blocks[0].Bytes <= WriteStager<TKey, TValue>.TargetBlockBytes && !_chain.SyncsEachGroup && !_compaction.HasWork && _indexSteps.Count == 0 && _checkpoints.Count == 0;
    }

    private void Commit(Action<IReadOnlyList<PartBlock>>? partPlaced)
    {
        _pipeline.Check(_stager.Blocks);
        foreach (var step in _checkpoints)
        {
            _chain.CutInto(step.Checkpoint);
        }

        _checkpoints.Clear();
        _compaction.Run();
        RunIndexSteps();
        _pipeline.Commit(_stager.Blocks, _stager.Count, _stager.CountBeforePart, _stager.HasPart, partPlaced);
        _stager.Committed();
        EndGroup();
        if (Ledger.WantsCompaction() || (Ledger.CompactsOnItsOwn && _chain.WantsMerge()))
        {
            CompactionWanted?.Invoke();
        }
    }

    /// <summary>
    /// Starts the indexes staged to start, from the records as published (before this group's writes, which they then
    /// see applied); installs those built beside the writer; drops those staged to stop. A unique index is built here,
    /// on the writer's turn, so that every write after its declaration is checked against it; any other is built beside
    /// the writer, from the records as of the published version (pinned until its install), while the writes go on. A
    /// build whose key selector throws fails that index alone.
    /// </summary>
    private void RunIndexSteps()
    {
        if (_indexSteps.Count == 0)
        {
            return;
        }

        // Unique indexes declared together are built side by side: each reads the records on its own, as readers do.
        var builds = _indexSteps.Where(s => s.Kind == IndexStepKind.Build && s.Index.Unique).ToList();
        var now = Map.Clock.Observe();
        var built = new bool[builds.Count];
        SharedLoop.For(builds.Count, _parallelism, i =>
            built[i] = builds[i].Index.Build(Map, Map.Published.Version, _values.ReadValue, now));
        var next = 0;
        foreach (var step in _indexSteps)
        {
            switch (step.Kind)
            {
                case IndexStepKind.Drop:
                    _indexes.Remove(step.Index);
                    break;
                case IndexStepKind.Build when step.Index.Unique:
                    if (built[next++])
                    {
                        _indexes.Add(step.Index);
                        step.Index.Serve(Map.Published.Version);
                    }

                    break;
                case IndexStepKind.Build:
                    step.Aside = BuildAside(step.Index, now);
                    break;
                case IndexStepKind.Install:
                    Install(step);
                    break;
            }
        }

        _indexSteps.Clear();
    }

    /// <summary>
    /// Builds <paramref name="index"/> on a thread of its own from the records as of the published version, which stays
    /// pinned until the install; the versions the writer applies meanwhile are held for the index, which takes most of
    /// them on the build's thread once built (see <see cref="HeldVersions{TKey,TValue}"/>).
    /// </summary>
    private (Task<bool> Build, long Version) BuildAside(IIndexMaintainer<TKey, TValue> index, long now)
    {
        var pinned = Map.Pin();
        var held = _indexes.Building(index);
        var records = new PinnedHeads<TKey, TValue>(Map, pinned);
        // A thread of its own, not one of the pool's: a build takes long, and the writes it must not hold back need the pool.
        return (Task.Factory.StartNew(
            () =>
            {
                if (!index.Build(records, pinned.Version, _values.ReadValue, now))
                {
                    return false;
                }

                held.CatchUp(index);
                return true;
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default), pinned.Version);
    }

    /// <summary>
    /// The build of <paramref name="step"/>'s index beside the writer is over: if it succeeded and the index was not
    /// dropped meanwhile, the index gets the versions applied since and answers from the published version on, unless
    /// one of them failed it; an index that failed is not kept.
    /// </summary>
    private void Install(IndexStep<TKey, TValue> step)
    {
        var (build, version) = step.Aside!.Value;
        Map.Unpin(version);
        if (!build.IsCompletedSuccessfully || !build.Result || step.Index.Failure is not null || !_indexes.Install(step.Index, Map.Published.Version))
        {
            _indexes.Remove(step.Index);
        }
    }
}
