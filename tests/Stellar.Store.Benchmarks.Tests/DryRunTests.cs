using BenchmarkDotNet.Running;
using Stellar.Store.Benchmarks;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Report;

namespace Stellar.Store.Benchmarks.Tests;

/// <summary>
/// Keeps the benchmarks from rotting: every benchmark runs once, in-process, on tiny stores (the dry mode), against
/// the real peers and real files; then the report is built from the CSV files that run wrote, and the game mix runs
/// for a second per store. Nothing here asserts a time.
/// </summary>
public sealed class DryRunTests : IDisposable
{
    private readonly string _results = Path.Combine(Path.GetTempPath(), "stellar-bench-tests", Guid.NewGuid().ToString("n"));

    public DryRunTests()
    {
        Environment.SetEnvironmentVariable(Scale.DryVariable, "1");
    }

    [Fact]
    public void EveryBenchmark_WhenRunDry_RunsOnceAndFeedsTheReport()
    {
        SideMetrics.Clear();
        var benchmarkTypes = typeof(Scale).Assembly.GetTypes()
            .Where(t => t.GetMethods().Any(m => m.GetCustomAttributes(typeof(BenchmarkDotNet.Attributes.BenchmarkAttribute), false).Length > 0))
            .ToArray();

        var summaries = BenchmarkRunner.Run(benchmarkTypes, BenchConfig.Create());

        Assert.Equal(benchmarkTypes.Length, summaries.Length);
        foreach (var summary in summaries)
        {
            Assert.False(summary.HasCriticalValidationErrors, string.Join("; ", summary.ValidationErrors.Select(e => e.Message)));
            Assert.NotEmpty(summary.BenchmarksCases);
            foreach (var report in summary.Reports)
            {
                Assert.True(report.Success, $"{report.BenchmarkCase.DisplayInfo} failed");
            }

            Assert.Equal(summary.BenchmarksCases.Length, summary.Reports.Length);
        }

        Assert.Equal(0, ReportCommand.Run(Paths.DryArtifacts, _results, readme: null));
        var ratios = File.ReadAllText(Path.Combine(_results, "ratios.md"));
        Assert.Contains("point read ≥ 20× faster than LiteDB", ratios, StringComparison.Ordinal);
        Assert.Contains("LZ4 + AES-GCM ≥ 0.8× plain", ratios, StringComparison.Ordinal);
        Assert.DoesNotContain("not measured", ratios, StringComparison.Ordinal);
        Assert.StartsWith("<svg", File.ReadAllText(Path.Combine(_results, "chart.svg")), StringComparison.Ordinal);
    }

    [Fact]
    public void GameMix_WhenRunDry_MeasuresWritesAndReadsOnEveryStore()
    {
        GameMix.Run(_results, TimeSpan.FromSeconds(1));

        var lines = File.ReadAllLines(Path.Combine(_results, "game-mix.csv"));
        Assert.Equal(6, lines.Length);
        foreach (var cells in lines.Skip(1).Select(l => l.Split(',')))
        {
            Assert.True(double.Parse(cells[2], System.Globalization.CultureInfo.InvariantCulture) > 0, $"{cells[0]} made no update");
            Assert.True(double.Parse(cells[5], System.Globalization.CultureInfo.InvariantCulture) > 0, $"{cells[0]} ran no query");
        }
    }

    public void Dispose()
    {
        if (Directory.Exists(_results))
        {
            Directory.Delete(_results, recursive: true);
        }
    }
}
