using System.Diagnostics;
using System.Globalization;
using System.Text;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>
/// Workload 8, a measured run rather than a BenchmarkDotNet benchmark (it is about latency under a mixed load, not
/// the mean of one operation): 10,000 players, each updated at 20 Hz by 64 writer tasks (every tick a writer
/// upserts each of its players, awaiting each write), while 16 readers each run a top-100 leaderboard query at
/// 20 Hz. Reports p50 and p99 latency of writes and reads, and the update rate reached against the 200,000/s target.
/// Writers and readers of blocking peers run on their own threads; Stellar's run as tasks.
/// </summary>
internal static class GameMix
{
    private const int Writers = 64;
    private const int Readers = 16;
    private const int TickHz = 20;
    private const int TopCount = 100;

    /// <summary>Runs the mix against every store; writes <c>game-mix.csv</c> and <c>game-mix.md</c> to <paramref name="resultsFolder"/>.</summary>
    public static void Run(string resultsFolder, TimeSpan duration)
    {
        var players = Data.SmallRange(Scale.Dry ? 640 : 10_000).ToArray();
        var rows = new List<Row>();
        foreach (var open in GameStores.All)
        {
            var directory = Paths.FreshDirectory(Paths.StoresRoot, $"game-{Guid.NewGuid():n}");
            Row row;
            using (var store = open(directory, players))
            {
                Console.WriteLine($"// game mix: {store.Name}, {players.Length} players, {duration.TotalSeconds:N0} s");
                row = Measure(store, players, duration);
            }

            rows.Add(row with { DiskKiB = Paths.SizeOnDisk(directory) / 1024 });
            Directory.Delete(directory, recursive: true);
            Console.WriteLine($"//   {rows[^1]}");
        }

        Directory.CreateDirectory(resultsFolder);
        File.WriteAllText(Path.Combine(resultsFolder, "game-mix.csv"), ToCsv(rows));
        File.WriteAllText(Path.Combine(resultsFolder, "game-mix.md"), ToMarkdown(rows, players.Length, duration));
    }

    private static Row Measure(IGameStore store, SmallRecord[] players, TimeSpan duration)
    {
        var writeLatencies = new List<double>[Writers];
        var readLatencies = new List<double>[Readers];
        var tick = TimeSpan.FromSeconds(1.0 / TickHz);
        var clock = Stopwatch.StartNew();
        var tasks = new List<Task>();
        for (var w = 0; w < Writers; w++)
        {
            var mine = players.Where(p => p.Id % Writers == w).ToArray();
            var latencies = writeLatencies[w] = new List<double>(mine.Length * TickHz * (int)Math.Ceiling(duration.TotalSeconds));
            var seed = w;
            tasks.Add(Start(store.IsAsync, async () =>
            {
                var random = new Random(seed);
                while (clock.Elapsed < duration)
                {
                    var tickStart = clock.Elapsed;
                    foreach (var player in mine)
                    {
                        // A store slower than the tick must not stretch the run: stop at the deadline, mid-tick.
                        if (clock.Elapsed >= duration)
                        {
                            break;
                        }

                        var update = new SmallRecord { Id = player.Id, Name = player.Name, Score = random.Next(0, 1_000_000), LastSeen = DateTime.UtcNow };
                        var start = Stopwatch.GetTimestamp();
                        await store.UpsertAsync(update).ConfigureAwait(false);
                        latencies.Add(Stopwatch.GetElapsedTime(start).TotalMicroseconds);
                    }

                    await PaceAsync(store.IsAsync, tickStart + tick - clock.Elapsed).ConfigureAwait(false);
                }
            }));
        }

        for (var r = 0; r < Readers; r++)
        {
            var latencies = readLatencies[r] = new List<double>();
            tasks.Add(Start(store.IsAsync, async () =>
            {
                while (clock.Elapsed < duration)
                {
                    var tickStart = clock.Elapsed;
                    var start = Stopwatch.GetTimestamp();
                    if (store.Top(TopCount) == 0)
                    {
                        throw new InvalidOperationException($"{store.Name} returned an empty leaderboard.");
                    }

                    latencies.Add(Stopwatch.GetElapsedTime(start).TotalMicroseconds);
                    await PaceAsync(store.IsAsync, tickStart + tick - clock.Elapsed).ConfigureAwait(false);
                }
            }));
        }

        Task.WaitAll(tasks);
        var elapsed = clock.Elapsed.TotalSeconds;
        var writes = writeLatencies.SelectMany(l => l).Order().ToArray();
        var reads = readLatencies.SelectMany(l => l).Order().ToArray();
        return new Row(store.Name, players.Length * TickHz, writes.Length / elapsed, Percentile(writes, 0.50), Percentile(writes, 0.99),
            reads.Length / elapsed, Percentile(reads, 0.50), Percentile(reads, 0.99), 0);
    }

    private static Task Start(bool isAsync, Func<Task> loop) => isAsync
        ? Task.Run(loop)
        : Task.Factory.StartNew(() => loop().GetAwaiter().GetResult(), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);

    /// <summary>Waits out the rest of the tick; a tick that overran starts the next at once (no catching up).</summary>
    private static Task PaceAsync(bool isAsync, TimeSpan remaining)
    {
        if (remaining <= TimeSpan.Zero)
        {
            return Task.CompletedTask;
        }

        if (isAsync)
        {
            return Task.Delay(remaining);
        }

        Thread.Sleep(remaining);
        return Task.CompletedTask;
    }

    private static double Percentile(double[] sorted, double p) =>
        sorted.Length == 0 ? double.NaN : sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(p * sorted.Length) - 1)];

    private static string ToCsv(List<Row> rows)
    {
        var csv = new StringBuilder("Store,TargetUpdatesPerSecond,UpdatesPerSecond,WriteP50Us,WriteP99Us,ReadsPerSecond,ReadP50Us,ReadP99Us,DiskKiB\n");
        foreach (var r in rows)
        {
            csv.AppendLine(string.Join(",", new object[] { r.Store, r.Target, r.UpdatesPerSecond, r.WriteP50, r.WriteP99, r.ReadsPerSecond, r.ReadP50, r.ReadP99, r.DiskKiB }
                .Select(v => Convert.ToString(v, CultureInfo.InvariantCulture))));
        }

        return csv.ToString();
    }

    private static string ToMarkdown(List<Row> rows, int players, TimeSpan duration)
    {
        var md = new StringBuilder();
        md.AppendLine(CultureInfo.InvariantCulture, $"{players:N0} players updated at {TickHz} Hz by {Writers} writers, {Readers} readers querying the top {TopCount} at {TickHz} Hz each, {duration.TotalSeconds:N0} s per store.");
        md.AppendLine();
        md.AppendLine("| Store (durability) | Updates/s (target) | Write p50 µs | Write p99 µs | Reads/s | Read p50 µs | Read p99 µs | Disk KiB |");
        md.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var r in rows)
        {
            md.AppendLine(CultureInfo.InvariantCulture,
                $"| {r.Store} | {r.UpdatesPerSecond:N0} ({r.Target:N0}) | {r.WriteP50:N0} | {r.WriteP99:N0} | {r.ReadsPerSecond:N0} | {r.ReadP50:N0} | {r.ReadP99:N0} | {r.DiskKiB:N0} |");
        }

        return md.ToString();
    }

    private sealed record Row(string Store, int Target, double UpdatesPerSecond, double WriteP50, double WriteP99,
        double ReadsPerSecond, double ReadP50, double ReadP99, long DiskKiB);
}
