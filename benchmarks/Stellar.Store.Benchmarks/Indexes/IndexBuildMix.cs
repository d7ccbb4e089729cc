using System.Diagnostics;
using System.Globalization;
using System.Text;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>
/// The <c>indexbuild</c> verb, a measured run rather than a BenchmarkDotNet benchmark (it is about how long writes wait
/// while an index is added to a live collection): a store of 1,000,000 small records (WriteThrough) is built once and
/// copied for each run (so that no run meets the compaction of the writes of the runs before it), 16 callers upsert
/// records picked at random as fast as their writes complete, and after a second an index on
/// the score is declared. Reported per run: how long the index took to be ready, how many writes completed meanwhile,
/// and how long the longest write that was under way at any time of the build waited (each caller times its own
/// writes), against the second before; and the collector's pauses meanwhile, since a build allocates its run and the
/// versions its pinned snapshot keeps add up.
/// </summary>
internal static class IndexBuildMix
{
    /// <summary>Concurrent callers.</summary>
    public const int Callers = 16;

    /// <summary>Runs in a default <c>indexbuild</c> run.</summary>
    public static int DefaultRuns => Scale.Dry ? 2 : 6;

    private static int Records => Scale.Records(1_000_000);

    private static TimeSpan Before => TimeSpan.FromSeconds(Scale.Dry ? 0.1 : 1);

    /// <summary>Runs the verb <paramref name="runs"/> times and writes <c>index-build.md</c> to <paramref name="results"/>; returns the rows.</summary>
    public static IReadOnlyList<IndexBuildRow> Run(string results, int runs)
    {
        var template = Paths.FreshDirectory(Paths.StoresRoot, "index-build");
        var created = StellarStore.OpenAsync(template, Peers.Stellar.Options(Durability.WriteThrough)).GetAwaiter().GetResult();
        created.GetCollection<int, SmallRecord>("records", r => r.Id).BulkImportAsync(Data.SmallRange(Records)).GetAwaiter().GetResult();
        created.DisposeAsync().AsTask().GetAwaiter().GetResult();

        var rows = new List<IndexBuildRow>();
        for (var run = 1; run <= runs; run++)
        {
            var directory = Paths.FreshDirectory(Paths.StoresRoot, "index-build-run");
            foreach (var file in Directory.GetFiles(template, "*", SearchOption.AllDirectories))
            {
                var copy = Path.Combine(directory, Path.GetRelativePath(template, file));
                Directory.CreateDirectory(Path.GetDirectoryName(copy)!);
                File.Copy(file, copy);
            }

            rows.Add(RunOnce(directory, run).GetAwaiter().GetResult());
            Console.WriteLine(rows[^1]);
            Directory.Delete(directory, recursive: true);
        }

        Directory.Delete(template, recursive: true);
        Directory.CreateDirectory(results);
        File.WriteAllText(Path.Combine(results, "index-build.md"), Markdown(rows));
        return rows;
    }

    private static async Task<IndexBuildRow> RunOnce(string directory, int run)
    {
        await using var store = await StellarStore.OpenAsync(directory, Peers.Stellar.Options(Durability.WriteThrough));
        var records = store.GetCollection<int, SmallRecord>("records", r => r.Id);
        using var stop = new CancellationTokenSource();
        var timings = new List<(long Start, long End)>[Callers];
        var callers = Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            var mine = timings[caller] = new List<(long, long)>();
            var random = new Random((run * Callers) + caller);
            while (!stop.IsCancellationRequested)
            {
                var record = Data.Next(Data.Small(random.Next(1, Records + 1)));
                var started = Stopwatch.GetTimestamp();
                await records.UpsertAsync(record).ConfigureAwait(false);
                mine.Add((started, Stopwatch.GetTimestamp()));
            }
        })).ToArray();

        await Task.Delay(Before);
        var declared = Stopwatch.GetTimestamp();
        var pauses = GC.GetTotalPauseDuration();
        await records.Index($"by-score-{run}", r => r.Score).Ready;
        var ready = Stopwatch.GetTimestamp();
        var paused = (GC.GetTotalPauseDuration() - pauses).TotalMilliseconds;
        await stop.CancelAsync();
        await Task.WhenAll(callers);

        var all = timings.SelectMany(t => t).ToList();
        var done = all.Count(t => t.End >= declared && t.End <= ready);
        var underWay = all.Where(t => t.End >= declared && t.Start <= ready).ToList();
        var second = declared - (long)(Before.TotalSeconds * Stopwatch.Frequency);
        var before = all.Where(t => t.End < declared && t.End >= second).ToList();
        var buildMs = Stopwatch.GetElapsedTime(declared, ready).TotalMilliseconds;
        return new IndexBuildRow(run, buildMs, done, done / (buildMs / 1000), Longest(underWay), Longest(before), before.Count / Before.TotalSeconds, paused);
    }

    private static double Longest(List<(long Start, long End)> writes) =>
        writes.Count == 0 ? 0 : writes.Max(w => Stopwatch.GetElapsedTime(w.Start, w.End).TotalMilliseconds);

    private static string Markdown(IReadOnlyList<IndexBuildRow> rows)
    {
        var text = new StringBuilder();
        text.AppendLine(CultureInfo.InvariantCulture, $"# An index added to a live collection ({Records:N0} records, {Callers} callers upserting, WriteThrough)");
        text.AppendLine();
        text.AppendLine("| Run | Build ms | Writes during it | Writes/s during it | Longest write under way during it, ms | Writes/s the second before | Longest write the second before, ms | GC pauses during it, ms |");
        text.AppendLine("|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var r in rows)
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"| {r.Run} | {r.BuildMs:N0} | {r.WritesDuring:N0} | {r.WritesPerSecondDuring:N0} | {r.LongestDuringMs:N1} | {r.WritesPerSecondBefore:N0} | {r.LongestBeforeMs:N1} | {r.GcPauseMs:N0} |");
        }

        return text.ToString();
    }
}
