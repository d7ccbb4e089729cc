using System.Diagnostics;
using Stellar.Store.Engine;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store.Diagnostics;

/// <summary>
/// What one collection reports: its committed groups, fsyncs, fault and compactions, to the store's logger and
/// instruments, every measurement tagged with the collection's name.
/// </summary>
/// <remarks>
/// Thread safety: <see cref="Count"/> and <see cref="Committed"/> are the writer's (single-writer, as the commit
/// pipeline); every other member may be called from any thread. Nothing on the write path allocates: tags are
/// prebuilt pairs, and each instrument is skipped while nothing listens to it.
/// </remarks>
internal sealed class CollectionDiagnostics
{
    private static readonly KeyValuePair<string, object?>[] KindTags =
    [
        new("kind", "insert"),
        new("kind", "update"),
        new("kind", "upsert"),
        new("kind", "delete"),
    ];

    private readonly StoreDiagnostics _store;

    /// <summary>Records and their bytes in the group being published, by <see cref="WriteKind"/>.</summary>
    private readonly long[] _writes = new long[KindTags.Length];
    private readonly long[] _bytes = new long[KindTags.Length];

    public CollectionDiagnostics(StoreDiagnostics store, string name)
    {
        _store = store;
        Name = name;
        Tag = new KeyValuePair<string, object?>(StoreMetrics.CollectionTag, name);
    }

    /// <summary>For shard chains made without a store (tests, benchmarks): reports to no logger.</summary>
    public static CollectionDiagnostics None { get; } = new(StoreDiagnostics.None, "");

    public string Name { get; }

    /// <summary>The tag every measurement of this collection carries.</summary>
    public KeyValuePair<string, object?> Tag { get; }

    private StoreMetrics Metrics => _store.Metrics;

    /// <summary>A timestamp to pass to <see cref="Committed"/>, or 0 while nothing listens to commit durations.</summary>
    public long CommitStarting() => Metrics.CommitDuration.Enabled ? Stopwatch.GetTimestamp() : 0;

    /// <summary>Counts one record of the group being published. Writer only.</summary>
    public void Count(WriteKind kind, int bytes)
    {
        _writes[(int)kind]++;
        _bytes[(int)kind] += bytes;
    }

    /// <summary>
    /// After a group was made durable and published: records its records by kind, its size and (from
    /// <paramref name="started"/>, a <see cref="CommitStarting"/> timestamp) its duration. Writer only.
    /// </summary>
    public void Committed(long started)
    {
        long group = 0;
        var metrics = Metrics;
        var counting = metrics.Writes.Enabled || metrics.WriteBytes.Enabled;
        for (var kind = 0; kind < _writes.Length; kind++)
        {
            var writes = _writes[kind];
            if (writes == 0)
            {
                continue;
            }

            group += writes;
            if (counting)
            {
                metrics.Writes.Add(writes, Tag, KindTags[kind]);
                metrics.WriteBytes.Add(_bytes[kind], Tag, KindTags[kind]);
            }

            _writes[kind] = 0;
            _bytes[kind] = 0;
        }

        if (group > 0)
        {
            metrics.GroupSize.Record(group, Tag);
        }

        if (started != 0)
        {
            metrics.CommitDuration.Record(Stopwatch.GetElapsedTime(started).TotalSeconds, Tag);
        }
    }

    /// <summary>
    /// Flushes <paramref name="file"/>, shard <paramref name="shardId"/> of collection <paramref name="collectionId"/>, to
    /// disk (fsync), timing it into the fsync histogram, and logs it as <see cref="StoreLogEvents.SlowFsync"/> when it took
    /// at least the store's threshold. Any thread.
    /// </summary>
    public void Fsync(IStorageFile file, uint collectionId, uint shardId)
    {
        var started = Stopwatch.GetTimestamp();
        file.FlushToDisk();
        var elapsed = Stopwatch.GetElapsedTime(started);
        Metrics.FsyncDuration.Record(elapsed.TotalSeconds, Tag);
        if (elapsed >= _store.SlowFsyncThreshold)
        {
            StoreLog.SlowFsync(_store.Logger, StoreFileNames.Shard(collectionId, shardId), Name, elapsed.TotalMilliseconds, _store.SlowFsyncThreshold.TotalMilliseconds);
        }
    }

    /// <summary>Once, when the collection faults: logs <see cref="StoreLogEvents.CollectionFaulted"/>. Any thread.</summary>
    public void Faulted(Exception failure) => StoreLog.CollectionFaulted(_store.Logger, Name, failure);

    /// <summary>At load: logs the blocks of uncommitted units that the load left out, if any.</summary>
    public void Loaded(long uncommittedUnitBlocks)
    {
        if (uncommittedUnitBlocks > 0)
        {
            StoreLog.UncommittedUnitBlocksIgnored(_store.Logger, Name, uncommittedUnitBlocks);
        }
    }

    /// <summary>Lets the gauges read the collection's queue and bytes until the returned registration is disposed.</summary>
    public IDisposable Observe(Func<long> queuedWrites, Func<long> queuedBytes, ShardUsageLedger ledger) =>
        Metrics.Observe(new ObservedCollection(Tag, queuedWrites, queuedBytes, ledger));

    /// <summary>Starts the trace of a compaction, when a listener samples it.</summary>
    public Activity? StartCompaction()
    {
        var activity = StoreDiagnostics.Activities.StartActivity("stellar.store.compaction");
        activity?.SetTag(StoreMetrics.CollectionTag, Name);
        return activity;
    }

    public void CompactionStarted(int shards, long storedBytes, long liveBytes) =>
        StoreLog.CompactionStarted(_store.Logger, Name, shards, storedBytes, liveBytes);

    /// <summary>A compaction that rewrote shards finished: logs it, counts it, and tags its trace.</summary>
    public void CompactionFinished(Activity? activity, TimeSpan elapsed, long storedBefore, long storedAfter)
    {
        activity?.SetTag("stellar.store.stored_bytes.before", storedBefore);
        activity?.SetTag("stellar.store.stored_bytes.after", storedAfter);
        Metrics.Compactions.Add(1, Tag, new KeyValuePair<string, object?>("outcome", "completed"));
        StoreLog.CompactionFinished(_store.Logger, Name, elapsed.TotalMilliseconds, storedBefore, storedAfter);
    }

    /// <summary>A compaction that swapped its output in passed a cursor's hold: logs it and counts it. Any thread.</summary>
    public void HoldPassed(PassedHold hold)
    {
        Metrics.HoldsPassed.Add(1, Tag, new KeyValuePair<string, object?>(StoreMetrics.CursorTag, hold.Cursor));
        StoreLog.CompactionHoldPassed(_store.Logger, Name, hold.Cursor, hold.Position.ToString(), hold.HeldBytes, hold.MaxBytes);
    }

    /// <summary>A compaction failed: logs it, counts it, and marks its trace.</summary>
    public void CompactionFailed(Activity? activity, TimeSpan elapsed, Exception failure)
    {
        activity?.SetStatus(ActivityStatusCode.Error, failure.Message);
        Metrics.Compactions.Add(1, Tag, new KeyValuePair<string, object?>("outcome", "failed"));
        StoreLog.CompactionFailed(_store.Logger, Name, elapsed.TotalMilliseconds, failure);
    }
}
