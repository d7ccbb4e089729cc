using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace Stellar.Store.Diagnostics;

/// <summary>
/// The instruments of one <see cref="Meter"/> named <see cref="StoreTelemetry.MeterName"/>, and the collections its
/// observable gauges read: one set per meter, so that stores sharing a meter (every store without a meter factory, or
/// the stores of one host's factory, which hands out one meter per name) never create an instrument twice. Names and
/// units follow OpenTelemetry's conventions; docs/observability.md lists them.
/// </summary>
/// <remarks>
/// Thread safety: every member may be called from any thread. Recording costs a check of the instrument's
/// <c>Enabled</c> when nothing listens; the gauges read their collections only when a listener collects.
/// </remarks>
internal sealed class StoreMetrics
{
    /// <summary>The tag naming the collection a measurement is about.</summary>
    public const string CollectionTag = "collection";

    /// <summary>The tag naming the change feed cursor a measurement is about.</summary>
    public const string CursorTag = "cursor";

    private static readonly string? Version = typeof(StoreMetrics).Assembly.GetName().Version?.ToString();

    private static readonly ConditionalWeakTable<Meter, StoreMetrics> ByMeter = new();

    private readonly object _gate = new();
    private ObservedCollection[] _observed = [];

    private StoreMetrics(Meter meter)
    {
        Meter = meter;
        Writes = meter.CreateCounter<long>("stellar.store.writes", "{write}", "Records written by committed groups, by kind (insert, update, upsert, delete).");
        WriteBytes = meter.CreateCounter<long>("stellar.store.write.bytes", "By", "Record bytes (key, value and record header, before compression and encryption) written by committed groups, by kind.");
        GroupSize = meter.CreateHistogram<long>("stellar.store.commit.group_size", "{write}", "Records per committed group: how many writes one append and one flush served.");
        CommitDuration = meter.CreateHistogram<double>("stellar.store.commit.duration", "s", "Time to commit a group: encode, append, flush per the durability mode, publish.");
        FsyncDuration = meter.CreateHistogram<double>("stellar.store.fsync.duration", "s", "Time of one fsync of a shard file.");
        Compactions = meter.CreateCounter<long>("stellar.store.compactions", "{compaction}", "Compactions that rewrote shards, by outcome (completed, failed).");
        HoldsPassed = meter.CreateCounter<long>("stellar.store.compaction.holds_passed", "{hold}", "Holds of change feed cursors that a compaction passed (keeping their history would exceed their bound), by collection and cursor.");
        Recoveries = meter.CreateCounter<long>("stellar.store.recoveries", "{recovery}", "Store opens, each verifying every block, by result (clean, repaired).");
        meter.CreateObservableGauge("stellar.store.queue.depth", () => Observe(static c => c.QueuedWrites()), "{write}", "Writes queued or being committed, per collection.");
        meter.CreateObservableGauge("stellar.store.queue.bytes", () => Observe(static c => c.QueuedBytes()), "By", "Record bytes of the writes queued or being committed, per collection.");
        meter.CreateObservableGauge("stellar.store.collection.stored_bytes", () => Observe(static c => c.Ledger.StoredBytes), "By", "Record bytes in the collection's shard files, live or not.");
        meter.CreateObservableGauge("stellar.store.collection.live_bytes", () => Observe(static c => c.Ledger.LiveBytes), "By", "Record bytes readers can still see; the rest is what compaction reclaims.");
    }

    /// <summary>The instruments of the meter shared by every store opened without a meter factory.</summary>
    public static StoreMetrics Shared { get; } = new(new Meter(StoreTelemetry.MeterName, Version));

    public Meter Meter { get; }

    public Counter<long> Writes { get; }

    public Counter<long> WriteBytes { get; }

    public Histogram<long> GroupSize { get; }

    public Histogram<double> CommitDuration { get; }

    public Histogram<double> FsyncDuration { get; }

    public Counter<long> Compactions { get; }

    public Counter<long> HoldsPassed { get; }

    public Counter<long> Recoveries { get; }

    /// <summary>The instruments of the meter <paramref name="factory"/> gives for the store's name, or the shared ones.</summary>
    public static StoreMetrics For(IMeterFactory? factory) => factory is null
        ? Shared
        : ByMeter.GetValue(factory.Create(new MeterOptions(StoreTelemetry.MeterName) { Version = Version }), static meter => new StoreMetrics(meter));

    /// <summary>Adds a collection to what the gauges read, until the returned registration is disposed.</summary>
    public IDisposable Observe(ObservedCollection collection)
    {
        lock (_gate)
        {
            _observed = [.. _observed, collection];
        }

        return new Registration(this, collection);
    }

    private void Forget(ObservedCollection collection)
    {
        lock (_gate)
        {
            _observed = _observed.Where(c => !ReferenceEquals(c, collection)).ToArray();
        }
    }

    private Measurement<long>[] Observe(Func<ObservedCollection, long> read)
    {
        var observed = Volatile.Read(ref _observed);
        var measurements = new Measurement<long>[observed.Length];
        for (var i = 0; i < observed.Length; i++)
        {
            measurements[i] = new Measurement<long>(read(observed[i]), observed[i].Tag);
        }

        return measurements;
    }

    private sealed class Registration(StoreMetrics metrics, ObservedCollection collection) : IDisposable
    {
        private int _disposed;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _disposed, 1) == 0)
            {
                metrics.Forget(collection);
            }
        }
    }
}
