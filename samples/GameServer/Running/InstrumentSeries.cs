using System.Diagnostics.Metrics;
using HdrHistogram;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// What one instrument reported for one set of tags: a counter's sum, a gauge's last value, or a histogram's
/// distribution (HdrHistogram; durations kept in microseconds).
/// </summary>
internal sealed class InstrumentSeries(Instrument instrument, string tags)
{
    private readonly LongHistogram? _histogram = instrument is Histogram<long> or Histogram<double> ? new LongHistogram(3_600_000_000, 3) : null;

    private double _value;

    public string Name => instrument.Name;

    public string Tags => tags;

    /// <summary>Durations come in seconds and are kept in microseconds; counts as they are.</summary>
    private double Scale => instrument.Unit == "s" ? 1_000_000 : 1;

    public double Value => _value;

    public long Count => _histogram?.TotalCount ?? 0;

    public void Add(double value)
    {
        if (_histogram is not null)
        {
            _histogram.RecordValue(Math.Clamp((long)Math.Round(value * Scale), 0, _histogram.HighestTrackableValue));
        }
        else if (instrument.IsObservable)
        {
            _value = value;
        }
        else
        {
            _value += value;
        }
    }

    /// <summary>The value at <paramref name="percentile"/> in the instrument's unit (a duration in milliseconds), 0 before any.</summary>
    public double Percentile(double percentile) =>
        _histogram is null || _histogram.TotalCount == 0 ? 0 : _histogram.GetValueAtPercentile(percentile) / Scale * (instrument.Unit == "s" ? 1000 : 1);

    /// <summary>One line: name, tags, and the value or the distribution.</summary>
    public string Describe()
    {
        var name = tags.Length == 0 ? Name : $"{Name}{{{tags}}}";
        if (_histogram is null)
        {
            return $"{name,-62} {_value,14:N0} {instrument.Unit}";
        }

        var unit = instrument.Unit == "s" ? "ms" : instrument.Unit;
        return $"{name,-62} count {Count,9:N0}  p50 {Percentile(50),8:N2}  p99 {Percentile(99),8:N2}  max {Percentile(100),8:N2} {unit}";
    }
}
