using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Stellar.Store.Diagnostics;

/// <summary>
/// What one store reports through, made from its options before it opens: its logger (a <see cref="NullLogger"/>
/// without <see cref="StoreOptions.LoggerFactory"/>), its instruments, and the traces of the shared activity source.
/// Hands each collection its <see cref="CollectionDiagnostics"/>.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal sealed class StoreDiagnostics
{
    /// <summary>The source of the store's traces; an activity starts only while a listener samples it.</summary>
    public static readonly ActivitySource Activities = new(StoreTelemetry.ActivitySourceName, typeof(StoreDiagnostics).Assembly.GetName().Version?.ToString());

    public StoreDiagnostics(StoreOptions options)
    {
        LoggerFactory = options.LoggerFactory;
        Logger = options.LoggerFactory?.CreateLogger(StoreTelemetry.LoggerCategory) ?? NullLogger.Instance;
        Metrics = StoreMetrics.For(options.MeterFactory);
        SlowFsyncThreshold = options.SlowFsyncThreshold == Timeout.InfiniteTimeSpan ? TimeSpan.MaxValue : options.SlowFsyncThreshold;
    }

    /// <summary>Reports nothing to any logger, and to the shared meter: for engines made without a store (tests, benchmarks).</summary>
    public static StoreDiagnostics None { get; } = new(new StoreOptions());

    /// <summary>The factory the store's actor system forwards its log to; null when the store logs nothing.</summary>
    public ILoggerFactory? LoggerFactory { get; }

    public ILogger Logger { get; }

    public StoreMetrics Metrics { get; }

    /// <summary>An fsync that takes at least this long is logged as <see cref="StoreLogEvents.SlowFsync"/>.</summary>
    public TimeSpan SlowFsyncThreshold { get; }

    /// <summary>The diagnostics of collection <paramref name="name"/>; one per collection and store.</summary>
    public CollectionDiagnostics Collection(string name) => new(this, name);

    /// <summary>Starts the trace of an open, when a listener samples it.</summary>
    public static Activity? StartOpen(string path)
    {
        var activity = Activities.StartActivity("stellar.store.open");
        activity?.SetTag("stellar.store.path", path);
        return activity;
    }

    /// <summary>Starts the trace of a checkpoint, when a listener samples it.</summary>
    public static Activity? StartCheckpoint(string name)
    {
        var activity = Activities.StartActivity("stellar.store.checkpoint");
        activity?.SetTag("stellar.store.checkpoint.name", name);
        return activity;
    }

    /// <summary>Tags a checkpoint's trace with what it shared and copied.</summary>
    public static void Checkpointed(Activity? activity, CheckpointInfo info)
    {
        activity?.SetTag("stellar.store.checkpoint.shared_bytes", info.SharedBytes);
        activity?.SetTag("stellar.store.checkpoint.copied_bytes", info.CopiedBytes);
    }

    /// <summary>After recovery: logs what it found and did, counts the recovery, and tags the open's trace.</summary>
    public void Opened(string path, RecoveryReport report, Activity? activity)
    {
        var repaired = report.TruncatedBytes > 0 || report.RemovedFiles.Count > 0;
        Metrics.Recoveries.Add(1, new KeyValuePair<string, object?>("result", repaired ? "repaired" : "clean"));
        activity?.SetTag("stellar.store.blocks_verified", report.BlocksVerified);
        activity?.SetTag("stellar.store.truncated_bytes", report.TruncatedBytes);
        if (report.TruncatedBytes > 0)
        {
            StoreLog.TornTailsCut(Logger, path, report.TruncatedBytes, report.TruncatedShards.Count, report.TruncatedShards);
        }

        if (report.IgnoredFiles.Count > 0)
        {
            StoreLog.UnlistedFilesIgnored(Logger, path, report.IgnoredFiles.Count, report.IgnoredFiles);
        }

        if (report.RemovedFiles.Count > 0)
        {
            StoreLog.LeftoverFilesRemoved(Logger, path, report.RemovedFiles.Count, report.RemovedFiles);
        }

        StoreLog.StoreOpened(Logger, path, report.BlocksVerified, report.Elapsed.TotalMilliseconds, report.ManifestGeneration);
    }
}
