using HdrHistogram;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// How long each tick's work took, and why. Recorded by the tick thread, read by anyone. Percentiles come from an
/// HdrHistogram of wall times (microseconds, three significant digits), so reading them costs the same after an hour
/// of ticks as after a second; the samples are kept only for what the slowest ticks were made of, at the summary.
/// </summary>
internal sealed class TickStats
{
    /// <summary>The longest tick the histogram tells apart: a longer one counts as this long.</summary>
    private const long LongestMicroseconds = 60_000_000;

    private readonly LongHistogram _wall = new(LongestMicroseconds, 3);
    private readonly List<TickSample> _samples = new(capacity: 20 * 60);
    private readonly Lock _lock = new();
    private int _idleCollections;
    private int _overBudget;

    /// <summary>The longest tick exactly, in milliseconds (the histogram's maximum is its bucket's).</summary>
    private double _max;

    public TickStats(TimeSpan budget) => Budget = budget;

    /// <summary>The tick period: work longer than this delays the next tick.</summary>
    public TimeSpan Budget { get; }

    /// <summary>Generation-0 collections the tick loop ran between ticks.</summary>
    public int IdleCollections => Volatile.Read(ref _idleCollections);

    /// <summary>Counts a collection run between ticks. Tick thread.</summary>
    public void CountIdleCollection() => Interlocked.Increment(ref _idleCollections);

    /// <summary>Records one tick: its wall time, the tick thread's CPU time during it, and GC pause time during it.</summary>
    public void Record(TimeSpan work, TimeSpan onCpu = default, TimeSpan gcPause = default)
    {
        var microseconds = Math.Clamp((long)Math.Round(work.TotalMicroseconds), 1, LongestMicroseconds);
        lock (_lock)
        {
            _wall.RecordValue(microseconds);
            _samples.Add(new TickSample(work.TotalMilliseconds, onCpu.TotalMilliseconds, gcPause.TotalMilliseconds));
            _max = Math.Max(_max, work.TotalMilliseconds);
            if (work > Budget)
            {
                _overBudget++;
            }
        }
    }

    /// <summary>The wall time, in milliseconds, that <paramref name="percentile"/> percent of the ticks so far took at most; 0 before any.</summary>
    public double Percentile(double percentile)
    {
        lock (_lock)
        {
            return _wall.TotalCount == 0 ? 0 : Math.Min(_max, _wall.GetValueAtPercentile(percentile) / 1000.0);
        }
    }

    /// <summary>The longest tick so far, in milliseconds.</summary>
    public double Max
    {
        get
        {
            lock (_lock)
            {
                return _max;
            }
        }
    }

    public TickSummary Summarize()
    {
        TickSample[] samples;
        long ticks;
        double p50, p99, max;
        int overBudget;
        lock (_lock)
        {
            ticks = _wall.TotalCount;
            if (ticks == 0)
            {
                return new TickSummary(0, 0, 0, 0, 0, default, IdleCollections);
            }

            samples = _samples.ToArray();
            // A histogram value is the top of its bucket, which may pass the longest tick recorded in it.
            p50 = Math.Min(_max, _wall.GetValueAtPercentile(50) / 1000.0);
            p99 = Math.Min(_max, _wall.GetValueAtPercentile(99) / 1000.0);
            max = _max;
            overBudget = _overBudget;
        }

        // The slowest 1% (at least one tick): what their time was made of, on average. Picked by one pass through a
        // heap of that many ticks, not a sort of them all.
        var count = Math.Max(1, samples.Length / 100);
        var heap = new PriorityQueue<TickSample, double>(count + 1);
        foreach (var sample in samples)
        {
            heap.Enqueue(sample, sample.Wall);
            if (heap.Count > count)
            {
                heap.Dequeue();
            }
        }

        var slowest = heap.UnorderedItems.Select(i => i.Element).ToArray();
        var slow = new TickSample(slowest.Average(t => t.Wall), slowest.Average(t => t.OnCpu), slowest.Average(t => t.GcPause));
        return new TickSummary((int)ticks, p50, p99, max, overBudget, slow, IdleCollections);
    }
}
