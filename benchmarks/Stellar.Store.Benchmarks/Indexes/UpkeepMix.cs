using System.Diagnostics;
using System.Globalization;
using System.Text;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Reads;

namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>
/// The <c>upkeep</c> verb, a measured run rather than a BenchmarkDotNet benchmark: what keeping indexes costs 64
/// callers' writes (WriteThrough), as <see cref="IndexMaintenanceBenchmarks"/> measures it, but with the rows side by
/// side. BenchmarkDotNet runs each row in a process of its own, one after the other, and on a shared 2-core machine
/// the speed of the disk and of the cores moves between minutes by more than an index costs, so the two rows' intervals
/// overlap whatever the cost. Here the three rows (no index, an index on the score, indexes on the score and the name)
/// run in rounds, in a rotating order, each in a fresh store of 100,000 small records; and the cost is the ratio of
/// each row's time per write to the no-index row's of the same round, summarised over the rounds with its
/// distribution-free interval, so that a slow minute moves both sides of a ratio.
/// </summary>
/// <remarks>
/// Every write moves its record in every index: the writes follow one another in each record's chain of versions
/// (each the <see cref="Data.Next"/> of the one before, renamed), so that no write stores a value a record already
/// has. The warm-up (the JIT, the thread pool's growth, the first write's wait for the writer's slot table) is untimed
/// and writes the same records in every row.
/// </remarks>
internal static class UpkeepMix
{
    /// <summary>Concurrent callers, each awaiting its own upserts one at a time.</summary>
    public const int Callers = 64;

    /// <summary>The rows: the indexes each keeps (none; the score; the score and the name).</summary>
    public static readonly int[] Rows = [0, 1, 2];

    /// <summary>Rounds in a default <c>upkeep</c> or <c>all</c> run: twelve, whose interval of the median covers it at 96%.</summary>
    public static int DefaultRuns => Scale.Dry ? 2 : 12;

    private static int Records => Scale.Records(PointReadBenchmarks.StoreRecords);

    private static int WarmUpWrites => Scale.Dry ? 64 : 16_384;

    private static int TimedWrites => Scale.Dry ? 256 : 131_072;

    /// <summary>
    /// Runs every row <paramref name="runs"/> times, in rounds; writes every run to <c>upkeep.csv</c> and the medians and
    /// ratios with their intervals to <c>upkeep.md</c> in <paramref name="resultsFolder"/>.
    /// </summary>
    public static List<UpkeepRow> Run(string resultsFolder, int runs)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(runs, 1);
        var records = Data.SmallRange(Records).ToArray();
        var (warmUp, timed) = Writes(records);

        // A round first, not reported: the process's first rows would otherwise pay the JIT's tiers and the growth of the
        // thread pool and of the heap, which a warm-up of a few thousand writes does not cover.
        foreach (var indexes in Rows)
        {
            Measure(0, indexes, records, warmUp, timed);
        }

        var rows = new List<UpkeepRow>();
        for (var run = 1; run <= runs; run++)
        {
            for (var i = 0; i < Rows.Length; i++)
            {
                rows.Add(Measure(run, Rows[(run - 1 + i) % Rows.Length], records, warmUp, timed));
                Console.WriteLine($"// upkeep, run {run} of {runs}: {rows[^1].Indexes} index(es), {rows[^1].NsPerWrite:N0} ns per write");
            }
        }

        Directory.CreateDirectory(resultsFolder);
        File.WriteAllText(Path.Combine(resultsFolder, "upkeep.csv"), UpkeepRow.ToCsv(rows));
        File.WriteAllText(Path.Combine(resultsFolder, "upkeep.md"), ToMarkdown(rows));
        return rows;
    }

    /// <summary>Each row's time per write over the no-index row's of the same round, one ratio per round; null when not measured.</summary>
    public static Figure? Ratio(IReadOnlyList<UpkeepRow> rows, int indexes) =>
        RoundRatios.Of(rows, r => r.Run, r => r.Indexes == indexes, r => r.Indexes == 0, r => r.NsPerWrite);

    /// <summary>The most time per write keeping <paramref name="indexes"/> indexes may take, against none: 15% of the throughput per index.</summary>
    public static double Target(int indexes) => Math.Round(1 / (1 - (0.15 * indexes)), 3);

    /// <summary>
    /// The writes of every row: <see cref="WarmUpWrites"/> then <see cref="TimedWrites"/>, of records picked at random
    /// (seeded), each the next version of the record's write before (so each moves its record in both indexes).
    /// </summary>
    private static (SmallRecord[] WarmUp, SmallRecord[] Timed) Writes(SmallRecord[] records)
    {
        var writes = Data.ChainedUpdates(records, WarmUpWrites + TimedWrites, renamed: true);
        return (writes[..WarmUpWrites], writes[WarmUpWrites..]);
    }

    private static UpkeepRow Measure(int run, int indexes, SmallRecord[] records, SmallRecord[] warmUp, SmallRecord[] timed)
    {
        var directory = Paths.FreshDirectory(Paths.StoresRoot, $"upkeep-{Guid.NewGuid():n}");
        try
        {
            var (store, collection) = Peers.Stellar.OpenSmall(directory, Peers.Stellar.Options(Durability.WriteThrough));
            try
            {
                collection.BulkImportAsync(records).GetAwaiter().GetResult();
                if (indexes >= 1)
                {
                    collection.Index("by-score", r => r.Score).Ready.GetAwaiter().GetResult();
                }

                if (indexes >= 2)
                {
                    collection.Index("by-name", r => r.Name).Ready.GetAwaiter().GetResult();
                }

                Write(collection, warmUp);
                var clock = Stopwatch.StartNew();
                Write(collection, timed);
                return new UpkeepRow(run, indexes, Callers, timed.Length, clock.Elapsed.TotalSeconds);
            }
            finally
            {
                store.DisposeAsync().AsTask().GetAwaiter().GetResult();
            }
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>64 callers, caller <c>c</c> upserting writes <c>c</c>, <c>c + 64</c>, ... in order, each awaited before the next.</summary>
    private static void Write(Collection<int, SmallRecord> collection, SmallRecord[] writes) =>
        Infrastructure.Callers.Tasks(Callers, async caller =>
        {
            for (var i = caller; i < writes.Length; i += Callers)
            {
                await collection.UpsertAsync(writes[i]).ConfigureAwait(false);
            }
        }).Run();

    private static string ToMarkdown(IReadOnlyList<UpkeepRow> rows)
    {
        var runs = rows.Select(r => r.Run).Distinct().Count();
        var text = new StringBuilder();
        text.AppendLine(CultureInfo.InvariantCulture, $"{Callers} callers upserting (WriteThrough) into a fresh store of {Records:N0} small records per row and run, every write moving its record in every index; {TimedWrites:N0} timed writes after {WarmUpWrites:N0} untimed ones; {runs} round(s) after one that is not reported, the rows of a round in a rotating order. Each cell is the median over the rounds with its 95% interval in brackets (distribution-free, from the rounds' order statistics); a ratio is taken per round, against the no-index row of the same round.");
        text.AppendLine();
        text.AppendLine("| Indexes kept | ns per write | time per write ÷ no index's, per round | Goal | Status |");
        text.AppendLine("|---|---:|---:|---|---|");
        foreach (var indexes in Rows)
        {
            var time = Figure.Of(rows.Where(r => r.Indexes == indexes).Select(r => r.NsPerWrite).ToList());
            var ratio = indexes == 0 ? null : Ratio(rows, indexes);
            var name = indexes switch { 0 => "none", 1 => "the score", _ => "the score and the name" };
            var cost = indexes == 0 ? "– | – | –"
                : string.Create(CultureInfo.InvariantCulture, $"{Units.UnitSummary.Decimal(ratio)} | ≤ {Target(indexes)}× | {RoundRatios.AtMost(ratio, Target(indexes))}");
            text.AppendLine(CultureInfo.InvariantCulture, $"| {name} | {time} | {cost} |");
        }

        return text.ToString();
    }
}
