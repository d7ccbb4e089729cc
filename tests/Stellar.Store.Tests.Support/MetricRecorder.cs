using System.Collections.Concurrent;
using System.Diagnostics.Metrics;

namespace Stellar.Store.Tests.Support;

/// <summary>
/// Listens to every instrument of the meters whose scope is one meter factory (a <see cref="TestMeterFactory"/>, or a
/// host's) and keeps each measurement, long or double, with its tags.
/// </summary>
/// <remarks>Thread safety: instruments may record from any thread; <see cref="Measurements"/> is a snapshot.</remarks>
public sealed class MetricRecorder : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly ConcurrentQueue<RecordedMeasurement> _measurements = new();

    /// <summary>Starts listening to the meters <paramref name="factory"/> creates (from now on, and those it made already).</summary>
    public MetricRecorder(IMeterFactory factory)
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (ReferenceEquals(instrument.Meter.Scope, factory))
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Keep(instrument, value, tags));
        _listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => Keep(instrument, value, tags));
        _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Keep(instrument, value, tags));
        _listener.Start();
    }

    /// <summary>Everything heard so far.</summary>
    public IReadOnlyList<RecordedMeasurement> Measurements => _measurements.ToArray();

    /// <summary>What instrument <paramref name="name"/> recorded so far.</summary>
    public IReadOnlyList<RecordedMeasurement> Of(string name) => Measurements.Where(m => m.Instrument == name).ToList();

    /// <summary>Asks every observable instrument for its values now, and returns what <paramref name="name"/> reported.</summary>
    public IReadOnlyList<RecordedMeasurement> Observe(string name)
    {
        var before = Of(name).Count;
        _listener.RecordObservableInstruments();
        return Of(name).Skip(before).ToList();
    }

    public void Dispose() => _listener.Dispose();

    private void Keep(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var copied = new Dictionary<string, object?>();
        foreach (var tag in tags)
        {
            copied[tag.Key] = tag.Value;
        }

        _measurements.Enqueue(new RecordedMeasurement(instrument.Name, instrument.Unit, value, copied));
    }
}
