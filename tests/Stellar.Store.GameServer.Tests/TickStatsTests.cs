using Stellar.Store.Samples.GameServer.Server;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// The tick statistics, from their histogram, against the test's own sort of the ticks it recorded (nearest rank): equal
/// within the histogram's three significant digits.
/// </summary>
public sealed class TickStatsTests
{
    private static double NearestRank(double[] sorted, double p) => sorted[Math.Clamp((int)Math.Ceiling(p * sorted.Length) - 1, 0, sorted.Length - 1)];

    [Fact]
    public void Summarize_OfKnownTicks_GivesThePercentilesMaxAndSlowestTicksOfTheSortedTicks()
    {
        var stats = new TickStats(TimeSpan.FromMilliseconds(50));
        var random = new Random(5);
        var walls = new List<double>();
        for (var i = 0; i < 2_000; i++)
        {
            // Mostly short ticks, a few long ones, none twice the same.
            var wall = (random.Next(10) == 0 ? 40 + random.NextDouble() * 30 : 0.5 + random.NextDouble() * 5) + i * 1e-6;
            walls.Add(wall);
            stats.Record(TimeSpan.FromMilliseconds(wall), onCpu: TimeSpan.FromMilliseconds(wall / 2), gcPause: TimeSpan.FromMilliseconds(wall / 4));
        }

        var sorted = walls.Order().ToArray();
        var summary = stats.Summarize();

        Assert.Equal(2_000, summary.Ticks);
        Assert.Equal(NearestRank(sorted, 0.50), summary.P50, tolerance: NearestRank(sorted, 0.50) * 0.002);
        Assert.Equal(NearestRank(sorted, 0.99), summary.P99, tolerance: NearestRank(sorted, 0.99) * 0.002);
        Assert.Equal(NearestRank(sorted, 0.99), stats.Percentile(99), tolerance: NearestRank(sorted, 0.99) * 0.002);
        Assert.Equal(sorted[^1], summary.Max, tolerance: 1e-3);
        Assert.Equal(walls.Count(w => w > 50), summary.OverBudget);

        var slowest = sorted[^20..];
        Assert.Equal(slowest.Average(), summary.Slowest.Wall, tolerance: 1e-3);
        Assert.Equal(slowest.Average() / 2, summary.Slowest.OnCpu, tolerance: 1e-3);
        Assert.Equal(slowest.Average() / 4, summary.Slowest.GcPause, tolerance: 1e-3);
    }

    [Fact]
    public void Summarize_BeforeAnyTick_IsEmpty()
    {
        var summary = new TickStats(TimeSpan.FromMilliseconds(50)).Summarize();
        Assert.Equal(0, summary.Ticks);
        Assert.Equal(0, summary.P99);
    }
}
