using System.Diagnostics.Metrics;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// Reads the store's <c>Stellar.Store</c> instruments through a <see cref="MeterListener"/>: what the status line shows
/// of the store (writes per second, commit and fsync latency) and what <c>--metrics console</c> prints, every
/// instrument by its tags. Only the meters of one <see cref="IMeterFactory"/> are heard.
/// </summary>
/// <remarks>Thread safety: the store records from its threads; readers take a lock.</remarks>
internal sealed class StoreInstruments : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly Lock _lock = new();
    private readonly SortedDictionary<(string Name, string Tags), InstrumentSeries> _series = new();

    public StoreInstruments(IMeterFactory meters)
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (ReferenceEquals(instrument.Meter.Scope, meters) && instrument.Meter.Name == StoreTelemetry.MeterName)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.Start();
    }

    /// <summary>Records the store wrote so far, over every collection and kind.</summary>
    public long Writes => (long)Sum("stellar.store.writes", s => s.Value);

    /// <summary>The p99 of every group's commit so far, in milliseconds, over all collections.</summary>
    public double CommitP99 => Max("stellar.store.commit.duration", s => s.Percentile(99));

    /// <summary>The p99 of every fsync so far, in milliseconds (0 when the durability mode made none).</summary>
    public double FsyncP99 => Max("stellar.store.fsync.duration", s => s.Percentile(99));

    /// <summary>Every instrument's value by its tags, gauges read now, one line each.</summary>
    public IReadOnlyList<string> Describe()
    {
        _listener.RecordObservableInstruments();
        lock (_lock)
        {
            return _series.Values.Select(s => s.Describe()).ToList();
        }
    }

    public void Dispose() => _listener.Dispose();

    private double Sum(string name, Func<InstrumentSeries, double> read)
    {
        lock (_lock)
        {
            return _series.Values.Where(s => s.Name == name).Sum(read);
        }
    }

    /// <summary>The largest per-collection value: the worst collection's p99 (histograms of several collections do not merge).</summary>
    private double Max(string name, Func<InstrumentSeries, double> read)
    {
        lock (_lock)
        {
            return _series.Values.Where(s => s.Name == name).Select(read).DefaultIfEmpty(0).Max();
        }
    }

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var parts = new List<string>(tags.Length);
        foreach (var tag in tags)
        {
            parts.Add($"{tag.Key}={tag.Value}");
        }

        parts.Sort(StringComparer.Ordinal);
        var key = (instrument.Name, string.Join(',', parts));
        lock (_lock)
        {
            if (!_series.TryGetValue(key, out var series))
            {
                series = new InstrumentSeries(instrument, key.Item2);
                _series[key] = series;
            }

            series.Add(value);
        }
    }
}
