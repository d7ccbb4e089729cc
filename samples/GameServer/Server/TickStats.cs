namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>How long each tick's work took, and why. Recorded by the tick thread, read by anyone.</summary>
internal sealed class TickStats
{
    private readonly List<TickSample> _samples = new(capacity: 20 * 60);
    private readonly Lock _lock = new();
    private int _idleCollections;

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
        lock (_lock)
        {
            _samples.Add(new TickSample(work.TotalMilliseconds, onCpu.TotalMilliseconds, gcPause.TotalMilliseconds));
        }
    }

    public TickSummary Summarize()
    {
        TickSample[] sorted;
        lock (_lock)
        {
            sorted = _samples.ToArray();
        }

        Array.Sort(sorted, static (a, b) => a.Wall.CompareTo(b.Wall));
        if (sorted.Length == 0)
        {
            return new TickSummary(0, 0, 0, 0, 0, default, IdleCollections);
        }

        var overBudget = sorted.Count(t => t.Wall > Budget.TotalMilliseconds);

        // The slowest 1% (at least one tick): what their time was made of, on average.
        var slowest = sorted[^Math.Max(1, sorted.Length / 100)..];
        var slow = new TickSample(slowest.Average(t => t.Wall), slowest.Average(t => t.OnCpu), slowest.Average(t => t.GcPause));
        return new TickSummary(sorted.Length, Percentile(sorted, 0.50), Percentile(sorted, 0.99), sorted[^1].Wall, overBudget, slow, IdleCollections);
    }

    private static double Percentile(TickSample[] sorted, double p) =>
        sorted[Math.Clamp((int)Math.Ceiling(p * sorted.Length) - 1, 0, sorted.Length - 1)].Wall;
}
