namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>How long each tick's work took. Recorded by the tick thread, read by anyone.</summary>
internal sealed class TickStats
{
    private readonly List<double> _milliseconds = new(capacity: 20 * 60);
    private readonly Lock _lock = new();

    public TickStats(TimeSpan budget) => Budget = budget;

    /// <summary>The tick period: work longer than this delays the next tick.</summary>
    public TimeSpan Budget { get; }

    public void Record(TimeSpan work)
    {
        lock (_lock)
        {
            _milliseconds.Add(work.TotalMilliseconds);
        }
    }

    public TickSummary Summarize()
    {
        double[] sorted;
        lock (_lock)
        {
            sorted = _milliseconds.ToArray();
        }

        Array.Sort(sorted);
        if (sorted.Length == 0)
        {
            return new TickSummary(0, 0, 0, 0, 0);
        }

        var overBudget = sorted.Count(ms => ms > Budget.TotalMilliseconds);
        return new TickSummary(sorted.Length, Percentile(sorted, 0.50), Percentile(sorted, 0.99), sorted[^1], overBudget);
    }

    private static double Percentile(double[] sorted, double p) =>
        sorted[Math.Clamp((int)Math.Ceiling(p * sorted.Length) - 1, 0, sorted.Length - 1)];
}
