using System.Diagnostics.Metrics;

namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>
/// Listens, while it lives, to the store's own instruments of its commits (<see cref="StoreTelemetry.MeterName"/>): the
/// commit groups, the writes they held, and the time the writer spent committing them (encode, append, flush, apply
/// and publish, indexes included). The <c>upkeep</c> verb reads them over a row's timed writes, to say whether the
/// writer, which keeps the indexes, is what a write waits for.
/// </summary>
/// <remarks>Thread safety: the instruments report from the writers' threads; the totals are read once the writes are done.</remarks>
internal sealed class CommitMeter : IDisposable
{
    private const string GroupSize = "stellar.store.commit.group_size";
    private const string CommitDuration = "stellar.store.commit.duration";

    private readonly MeterListener _listener = new();
    private long _groups;
    private long _writes;
    private long _commitTicks;

    public CommitMeter()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == StoreTelemetry.MeterName && instrument.Name is GroupSize or CommitDuration)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((_, writes, _, _) =>
        {
            Interlocked.Increment(ref _groups);
            Interlocked.Add(ref _writes, writes);
        });
        _listener.SetMeasurementEventCallback<double>((_, seconds, _, _) => Interlocked.Add(ref _commitTicks, TimeSpan.FromSeconds(seconds).Ticks));
        _listener.Start();
    }

    /// <summary>The commit groups so far.</summary>
    public long Groups => Interlocked.Read(ref _groups);

    /// <summary>The writes the commit groups so far held.</summary>
    public long Writes => Interlocked.Read(ref _writes);

    /// <summary>The writers' time in commits so far, in seconds.</summary>
    public double CommitSeconds => TimeSpan.FromTicks(Interlocked.Read(ref _commitTicks)).TotalSeconds;

    public void Dispose() => _listener.Dispose();
}
