using BenchmarkDotNet.Running;
using Stellar.Store.Benchmarks;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Indexes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Open;
using Stellar.Store.Benchmarks.Reads;
using Stellar.Store.Benchmarks.Report;
using Stellar.Store.Benchmarks.Units;

namespace Stellar.Store.Benchmarks.Tests;

/// <summary>
/// Keeps the benchmarks from rotting: every benchmark runs once, in-process, on tiny stores (the dry mode), against
/// the real peers and real files; then the report is built from the CSV files that run wrote, and the game mix runs
/// for a second per store. Nothing here asserts a time. The scan and top-N tests check that every peer answers the
/// same query with the same records, against a plain LINQ computation over the generated data.
/// </summary>
[Collection(DryRunCollection.Name)]
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
        Assert.Contains("≥ 20× faster than LiteDB", ratios, StringComparison.Ordinal);
        Assert.Contains("LZ4 + AES-GCM ≥ 0.8× plain", ratios, StringComparison.Ordinal);
        Assert.DoesNotContain("not measured", ratios, StringComparison.Ordinal);
        Assert.StartsWith("<svg", File.ReadAllText(Path.Combine(_results, "chart.svg")), StringComparison.Ordinal);

        // The report names goals by what they measure: no tracker references in what gets published.
        var published = File.ReadAllText(Path.Combine(_results, "summary.md"));
        Assert.DoesNotMatch(@"(?i)\bissues?\b", published);
        Assert.DoesNotMatch(@"(?i)\bissues?\b", ratios);

        // Every row of a write or read workload says what it promises.
        var rows = Directory.GetFiles(Path.Combine(Paths.DryArtifacts, "results"), "*-report.csv").SelectMany(ResultRow.Load).ToList();
        Assert.All(rows, r => Assert.False(string.IsNullOrEmpty(r.Pairing), $"{r.Workload}.{r.Method} has no durability pairing"));
    }

    [Fact]
    public void ScanQuery_OnEveryPeer_ReturnsAsManyRecordsAsALinqFilterOverTheSameData()
    {
        // Independent oracle: the predicate applied to the generated records, without any store.
        var expected = Data.SmallRange(PointReadBenchmarks.StoreRecords)
            .Count(r => r.Score >= ScanQueryBenchmarks.MinScore && r.LastSeen >= ScanQueryBenchmarks.Since);
        Assert.True(expected > 0, "the dry data set must have matching records");

        var benchmark = new ScanQueryBenchmarks();
        try
        {
            benchmark.SetupLite();
            benchmark.SetupSqlite();
            benchmark.SetupZone();
            benchmark.SetupStellar();
            benchmark.SetupDictionary();
            Assert.Equal(expected, benchmark.LiteDb_Find());
            Assert.Equal(expected, benchmark.Sqlite_Where());
            Assert.Equal(expected, benchmark.ZoneTree_Iterate());
            Assert.Equal(expected, benchmark.Stellar_Query());
            Assert.Equal(expected, benchmark.ConcurrentDictionary_Values());
        }
        finally
        {
            benchmark.GlobalCleanup();
        }
    }

    [Fact]
    public void TopN_OnEveryRow_ReturnsTheHighestScoresOfTheSameData()
    {
        // Independent oracle: the generated records' scores, sorted without any store.
        var expected = Data.SmallRange(PointReadBenchmarks.StoreRecords).Select(r => r.Score).OrderDescending().Take(TopNBenchmarks.Count).ToArray();
        var benchmark = new TopNBenchmarks();
        try
        {
            benchmark.SetupLite();
            benchmark.SetupSqlite();
            benchmark.SetupStellar();
            Assert.Equal(expected, benchmark.Sqlite_IndexTop().Select(r => r.Score));
            Assert.Equal(expected, benchmark.LiteDb_IndexTop().Select(r => r.Score));
            Assert.Equal(expected, benchmark.Stellar_IndexTop().Select(r => r.Score));
            Assert.Equal(expected, benchmark.Stellar_ScanAndSort().Select(r => r.Score));
        }
        finally
        {
            benchmark.GlobalCleanup();
        }
    }

    [Fact]
    public void Top_OnEveryGameStore_ReturnsTheHighestScoresOfTheSameData()
    {
        var players = Data.SmallRange(GameMix.Players).ToArray();
        var expected = players.Select(p => p.Score).OrderDescending().Take(GameMix.TopCount).ToArray();
        foreach (var open in GameStores.All)
        {
            var directory = Path.Combine(_results, Guid.NewGuid().ToString("n"));
            Directory.CreateDirectory(directory);
            using var store = open(directory, players);
            var top = store.Top(0, GameMix.TopCount);
            Assert.True(expected.Length == top.Count, $"{store.Name} returned {top.Count} players, expected {expected.Length}");
            Assert.True(expected.SequenceEqual(top.Select(p => p.Score)), $"{store.Name} returned other scores than the highest, in order");
        }
    }

    [Fact]
    public void GameMix_WhenRunDry_MeasuresWritesAndReadsOnEveryStoreInEveryRun()
    {
        GameMix.Run(_results, TimeSpan.FromSeconds(1), runs: 2);

        var lines = File.ReadAllLines(Path.Combine(_results, "game-mix.csv"));
        var header = lines[0].Split(',');
        Assert.Equal((2 * GameStores.All.Count()) + 1, lines.Length);
        foreach (var cells in lines.Skip(1).Select(l => l.Split(',')))
        {
            double Cell(string name) => double.Parse(cells[Array.IndexOf(header, name)], System.Globalization.CultureInfo.InvariantCulture);
            var store = cells[Array.IndexOf(header, "Store")];
            Assert.True(Cell("UpdatesPerSecond") > 0, $"{store} made no update");
            Assert.True(Cell("ReadsPerSecond") > 0, $"{store} ran no query");
            Assert.False(string.IsNullOrEmpty(cells[Array.IndexOf(header, "Pairing")]), $"{store} has no durability pairing");

            // An operation's latency counts from its intended start, or from when it started if the wait woke early: never
            // less than the operation took.
            foreach (var latency in new[] { "WriteP50Us", "WriteP99Us", "ReadP50Us", "ReadP99Us" })
            {
                Assert.True(Cell(latency) >= 0, $"{store} has a {latency} of {Cell(latency)} µs");
            }
        }

        // Every store ran in both rounds, and the summary gives each figure with an interval over the runs.
        var runs = GameRow.Load(Path.Combine(_results, "game-mix.csv"));
        Assert.All(runs.GroupBy(r => r.Store), g => Assert.Equal([1, 2], g.Select(r => r.Run).Order()));
        var markdown = File.ReadAllText(Path.Combine(_results, "game-mix.md"));
        Assert.Contains("2 run(s) per store", markdown, StringComparison.Ordinal);
        Assert.Matches(@"\| Stellar_Fsync \| fsync \| [\d,]+ \[[\d,]+–[\d,]+\]", markdown);
    }

    [Fact]
    public void Units_WhenRunDry_MeasuresEveryRowInEveryRunAndJudgesTheGoalOnEachMode()
    {
        UnitMix.Run(_results, TimeSpan.FromSeconds(0.2), runs: 2);

        // Every run has both write rows in both modes and both snapshot-read rows, as the CSV the report reads says.
        var rows = UnitRow.Load(Path.Combine(_results, "units.csv"));
        string[] modes = ["WriteThrough", "Fsync"];
        foreach (var run in new[] { 1, 2 })
        {
            foreach (var mode in modes)
            {
                Assert.Single(rows, r => r.Run == run && r.Mode == mode && r.Kind == UnitMix.Single);
                Assert.Single(rows, r => r.Run == run && r.Mode == mode && r.Kind == UnitMix.Cross);
            }

            Assert.Single(rows, r => r.Run == run && r.Kind == UnitMix.StoreSnapshot);
            Assert.Single(rows, r => r.Run == run && r.Kind == UnitMix.CollectionSnapshots);
        }

        // Every unit holds 2 to 5 records; a cross-collection row went through the coordinator's rounds, each of which
        // takes at least one unit.
        foreach (var row in rows.Where(r => r.Kind is UnitMix.Single or UnitMix.Cross))
        {
            Assert.True(row.Units > 0, $"{row.Mode} {row.Kind} wrote no unit");
            Assert.InRange(row.Records, 2 * row.Units, 5 * row.Units);
            Assert.Equal(UnitMix.Callers, row.Callers);
            if (row.Kind == UnitMix.Cross)
            {
                Assert.InRange(row.Rounds, 1, row.Units);
            }
        }

        // The goal is judged in each mode apart, never left unmeasured once the verb ran.
        var goals = UnitGoals.Evaluate(rows).ToList();
        Assert.Equal(modes.Length, goals.Count);
        Assert.All(goals, g => Assert.NotNull(g.Ratio));
        Assert.All(goals, g => Assert.Contains(g.Status, new[] { "met", "**MISSED**", "inconclusive (the interval spans the target)" }));
        var markdown = File.ReadAllText(Path.Combine(_results, "units.md"));
        Assert.Matches(@"\| Fsync \| [\d.]+ \[[\d.]+–[\d.]+\] \|", markdown);

        // The report's goal table carries the same rows once it is given the verb's results.
        var reported = new Goals([], units: rows).Evaluate().Where(g => g.Goal.StartsWith("cross-collection units", StringComparison.Ordinal)).ToList();
        Assert.Equal(goals, reported);
    }

    [Fact]
    public void Upkeep_WhenRunDry_MeasuresEveryRowInEveryRoundAndJudgesEachGoalFromTheRoundsRatios()
    {
        UpkeepMix.Run(_results, runs: 2);

        // Every round has each row once, as the CSV the report reads says; a row's writes all completed, and took CPU.
        var rows = UpkeepRow.Load(Path.Combine(_results, "upkeep.csv"));
        Assert.Equal(8, rows.Count);
        foreach (var run in new[] { 1, 2 })
        {
            Assert.Equal(UpkeepMix.Rows.Order(), rows.Where(r => r.Run == run).Select(r => r.Kept).Order());
        }

        Assert.Equal(["none", "score", "name", "score+name"], UpkeepMix.Rows);
        Assert.Equal([0, 1, 1, 2], UpkeepMix.Rows.Select(kept => rows.First(r => r.Kept == kept).Indexes));
        Assert.All(rows, r =>
        {
            Assert.Equal(UpkeepMix.Callers, r.Callers);
            Assert.True(r.Writes > 0 && r.Seconds > 0 && r.CpuSeconds > 0 && r.PauseSeconds >= 0, $"round {r.Run}, {r.Kept}: nothing timed");

            // Every write allocates at least the record's version in memory, so no row measured nothing.
            Assert.True(r.AllocatedBytesPerWrite > 0, $"round {r.Run}, {r.Kept}: no allocation recorded");

            // Every timed write was in a group the store's instruments reported, and no group held more writes than
            // there are callers, each of which waits for its write before the next; committing took some of the time.
            Assert.InRange(r.WritesPerGroup, 1, UpkeepMix.Callers);
            Assert.True(r.CommitShare > 0, $"round {r.Run}, {r.Kept}: no commit time recorded");
        });

        // The ratio of a round is its own rows' (an independent computation from the CSV), and the goals are judged on
        // the rounds' ratios, in the verb's summary and in the report's goal table alike.
        foreach (var kept in new[] { "score", "name", "score+name" })
        {
            var perRound = new[] { 1, 2 }.Select(run => rows.Single(r => r.Run == run && r.Kept == kept).NsPerWrite / rows.Single(r => r.Run == run && r.Kept == "none").NsPerWrite).Order().ToArray();
            var ratio = UpkeepMix.Ratio(rows, kept)!.Value;
            Assert.Equal((perRound[0] + perRound[1]) / 2, ratio.Median, 9);
            Assert.Equal(perRound[0], ratio.Low, 9);
            Assert.Equal(perRound[1], ratio.High, 9);
        }

        var goals = new Goals([], upkeep: rows).Evaluate().Where(g => g.Goal.EndsWith("rows side by side", StringComparison.Ordinal)).ToList();
        Assert.Equal(3, goals.Count);
        Assert.All(goals, g => Assert.NotNull(g.Ratio));
        Assert.All(goals, g => Assert.Contains(g.Status, new[] { "met", "**MISSED**", "inconclusive (the interval spans the target)" }));
        Assert.Equal(["≤ 1.176×", "≤ 1.176×", "≤ 1.429×"], goals.Select(g => g.Target));
        Assert.Contains("the index on the name costs ≤ 15%", goals[1].Goal);
        var markdown = File.ReadAllText(Path.Combine(_results, "upkeep.md"));
        Assert.Matches(@"\| the name \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d.]+ \[[\d.]+–[\d.]+\] \| [\d.]+ \[[\d.]+–[\d.]+\] \| [\d.]+ \[[\d.]+–[\d.]+\] \| ≤ 1.176× \|", markdown);
        Assert.Matches(@"\| the score and the name \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d.]+ \[[\d.]+–[\d.]+\] \| [\d.]+ \[[\d.]+–[\d.]+\] \| [\d.]+ \[[\d.]+–[\d.]+\] \| ≤ 1.429× \|", markdown);

        // Without the verb's results the goals say so, not a status.
        Assert.All(new Goals([]).Evaluate().Where(g => g.Goal.EndsWith("rows side by side", StringComparison.Ordinal)), g => Assert.Equal("upkeep verb not run", g.Status));
    }

    /// <summary>
    /// A results file of the verb's first version, whose rows were the count of indexes (the score, then the name too),
    /// still loads, and is judged as it was: the row of the name alone is simply not in it.
    /// </summary>
    [Fact]
    public void Upkeep_AResultsFileOfTheFirstVersion_LoadsAsTheRowsItHeld()
    {
        var path = Path.Combine(_results, "upkeep-first.csv");
        Directory.CreateDirectory(_results);
        File.WriteAllText(path, "Run,Indexes,Callers,Writes,Seconds,NsPerWrite\n1,0,64,100,0.001,10000\n1,1,64,100,0.002,20000\n1,2,64,100,0.004,40000\n");

        var rows = UpkeepRow.Load(path);
        Assert.Equal(["none", "score", "score+name"], rows.Select(r => r.Kept));
        Assert.Equal([10_000d, 20_000d, 40_000d], rows.Select(r => r.NsPerWrite));
        Assert.All(rows, r => Assert.True(double.IsNaN(r.CpuSeconds) && double.IsNaN(r.PauseSeconds)));
        Assert.Equal(2.0, UpkeepMix.Ratio(rows, "score")!.Value.Median, 9);
        Assert.Null(UpkeepMix.Ratio(rows, "name"));
    }

    /// <summary>A results file of the verb's second version, which recorded CPU time and pauses but no allocations, still loads.</summary>
    [Fact]
    public void Upkeep_AResultsFileOfTheSecondVersion_LoadsWithoutItsAllocations()
    {
        var path = Path.Combine(_results, "upkeep-second.csv");
        Directory.CreateDirectory(_results);
        File.WriteAllText(path, "Run,Kept,Indexes,Callers,Writes,Seconds,NsPerWrite,CpuNsPerWrite,PauseMs\n1,none,0,64,100,0.001,10000,15000,2\n1,name,1,64,100,0.003,30000,40000,5\n");

        var rows = UpkeepRow.Load(path);
        Assert.Equal(["none", "name"], rows.Select(r => r.Kept));
        Assert.Equal([15_000d, 40_000d], rows.Select(r => Math.Round(r.CpuNsPerWrite)));
        Assert.Equal([0.002, 0.005], rows.Select(r => r.PauseSeconds));
        Assert.All(rows, r => Assert.True(double.IsNaN(r.AllocatedBytesPerWrite)));
        Assert.Equal(3.0, UpkeepMix.Ratio(rows, "name")!.Value.Median, 9);
    }

    /// <summary>A results file of the verb's third version, which recorded allocations but not the commit groups, still loads.</summary>
    [Fact]
    public void Upkeep_AResultsFileOfTheThirdVersion_LoadsWithoutItsCommitGroups()
    {
        var path = Path.Combine(_results, "upkeep-third.csv");
        Directory.CreateDirectory(_results);
        File.WriteAllText(path, "Run,Kept,Indexes,Callers,Writes,Seconds,NsPerWrite,CpuNsPerWrite,PauseMs,AllocatedBytesPerWrite\n1,none,0,64,100,0.001,10000,15000,2,500\n1,score,1,64,100,0.002,20000,30000,4,600\n");

        var rows = UpkeepRow.Load(path);
        Assert.Equal(["none", "score"], rows.Select(r => r.Kept));
        Assert.Equal([500d, 600d], rows.Select(r => Math.Round(r.AllocatedBytesPerWrite)));
        Assert.All(rows, r => Assert.True(double.IsNaN(r.WritesPerGroup) && double.IsNaN(r.CommitShare)));
        Assert.Equal(2.0, UpkeepMix.Ratio(rows, "score")!.Value.Median, 9);
    }

    /// <summary>A results file of this version keeps the commit groups and the writer's share of the time through a save and a load.</summary>
    [Fact]
    public void Upkeep_AResultsFile_KeepsTheCommitGroupsThroughASaveAndALoad()
    {
        var path = Path.Combine(_results, "upkeep-groups.csv");
        Directory.CreateDirectory(_results);
        File.WriteAllText(path, UpkeepRow.ToCsv([new UpkeepRow(1, "name", 64, 1_000, 0.004, 0.006, 0.001, 600_000, Groups: 250, CommitSeconds: 0.001)]));

        var row = Assert.Single(UpkeepRow.Load(path));
        Assert.Equal(4.0, row.WritesPerGroup, 9);
        Assert.Equal(0.25, row.CommitShare, 9);
        Assert.Equal(600.0, row.AllocatedBytesPerWrite, 9);
    }

    [Theory]
    [InlineData(false, "opens", "side by side", "in one process")]
    [InlineData(true, "opens-fresh", "each open in a fresh process (a server restart)", "each open in a fresh process of its own")]
    public void Opens_WhenRunDry_OpensBothWaysInEveryRoundAndJudgesTheGoalFromTheRoundsRatios(bool fresh, string file, string goalEnd, string how)
    {
        OpenPairMix.Run(_results, runs: 2, fresh);

        var rows = OpenPairRow.Load(Path.Combine(_results, $"{file}.csv"));
        Assert.Equal(4, rows.Count);
        foreach (var run in new[] { 1, 2 })
        {
            Assert.Equal([0, OpenPairMix.Indexed], rows.Where(r => r.Run == run).Select(r => r.Indexes).Order());
        }

        Assert.All(rows, r => Assert.True(r.Milliseconds > 0, $"round {r.Run}, {r.Indexes} index(es): nothing timed"));

        // The ratio of a round is its own two opens' (computed here from the CSV), judged on the rounds' interval.
        var perRound = new[] { 1, 2 }.Select(run => rows.Single(r => r.Run == run && r.Indexes == OpenPairMix.Indexed).Milliseconds / rows.Single(r => r.Run == run && r.Indexes == 0).Milliseconds).Order().ToArray();
        var ratio = OpenPairMix.Ratio(rows)!.Value;
        Assert.Equal((perRound[0] + perRound[1]) / 2, ratio.Median, 9);
        Assert.Equal(perRound[0], ratio.Low, 9);
        Assert.Equal(perRound[1], ratio.High, 9);

        var goals = fresh ? new Goals([], freshOpens: rows) : new Goals([], opens: rows);
        var goal = Assert.Single(goals.Evaluate(), g => g.Goal.StartsWith("open of 1,000,000 records with two indexes built", StringComparison.Ordinal) && g.Goal.EndsWith(goalEnd, StringComparison.Ordinal));
        Assert.Equal(ratio.Median, goal.Ratio);
        Assert.Equal("≤ 1.3×", goal.Target);
        Assert.Contains(goal.Status, new[] { "met", "**MISSED**", "inconclusive (the interval spans the target)" });
        var markdown = File.ReadAllText(Path.Combine(_results, $"{file}.md"));
        Assert.Contains(how, markdown, StringComparison.Ordinal);
        Assert.Matches(@"\| two indexes \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d.]+ \[[\d.]+–[\d.]+\] \| ≤ 1.3× \|", markdown);
        Assert.Single(new Goals([]).Evaluate(), g => g.Status == (fresh ? "opens verb not run fresh" : "opens verb not run"));
    }

    [Theory]
    [InlineData(false, "opens-atload")]
    [InlineData(true, "opens-fresh-atload")]
    public void Opens_WithTheIndexesDeclaredWithTheLoad_OpensBothWaysInEveryRoundAndSaysHowTheyWereDeclared(bool fresh, string file)
    {
        OpenPairMix.Run(_results, runs: 2, fresh, atLoad: true);

        var rows = OpenPairRow.Load(Path.Combine(_results, $"{file}.csv"));
        Assert.Equal(4, rows.Count);
        foreach (var run in new[] { 1, 2 })
        {
            Assert.Equal([0, OpenPairMix.Indexed], rows.Where(r => r.Run == run).Select(r => r.Indexes).Order());
        }

        Assert.All(rows, r => Assert.True(r.Milliseconds > 0, $"round {r.Run}, {r.Indexes} index(es): nothing timed"));
        var markdown = File.ReadAllText(Path.Combine(_results, $"{file}.md"));
        Assert.Contains("declared with the collection's load", markdown, StringComparison.Ordinal);
        Assert.Matches(@"\| two indexes \| [\d,]+ \[[\d,]+–[\d,]+\] \| [\d.]+ \[[\d.]+–[\d.]+\] \| ≤ 1.3× \|", markdown);
        Assert.False(File.Exists(Path.Combine(_results, fresh ? "opens-fresh.csv" : "opens.csv")), "the declaration after the load keeps its own files");
    }

    [Fact]
    public void IndexBuild_WhenRunDry_ReportsEveryRunWithTheWritesBeforeAndDuringTheBuild()
    {
        var rows = IndexBuildMix.Run(_results, runs: 2);

        Assert.Equal(new[] { 1, 2 }, rows.Select(r => r.Run));
        Assert.All(rows, r =>
        {
            Assert.True(r.BuildMs > 0, $"run {r.Run} timed no build");
            Assert.True(r.WritesPerSecondBefore > 0, $"run {r.Run}: the callers wrote nothing before the declaration");
            Assert.InRange(r.LongestDuringMs, 0, r.BuildMs + 1_000);
        });
        var markdown = File.ReadAllText(Path.Combine(_results, "index-build.md"));
        Assert.Matches(@"\| 2 \| [\d,]+ \| [\d,]+ \|", markdown);
    }

    [Fact]
    public void SideMetrics_OfARealRun_AreKeptApartFromEveryDryRun()
    {
        // A dry run (this suite, in any checkout on the machine) clears its side-metric folder; a real run's sizes on
        // disk and record counts must not live where that happens.
        var dry = Paths.MetricsRoot;
        Environment.SetEnvironmentVariable(Scale.DryVariable, null);
        try
        {
            var real = Paths.MetricsRoot;
            Assert.NotEqual(dry, real);
            Assert.StartsWith(Paths.Artifacts, real, StringComparison.Ordinal);
        }
        finally
        {
            Environment.SetEnvironmentVariable(Scale.DryVariable, "1");
        }
    }

    public void Dispose()
    {
        if (Directory.Exists(_results))
        {
            Directory.Delete(_results, recursive: true);
        }

        if (Directory.Exists(Paths.DryArtifacts))
        {
            Directory.Delete(Paths.DryArtifacts, recursive: true);
        }
    }
}
