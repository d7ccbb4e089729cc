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
/// overlap whatever the cost. Here the four rows (no index, an index on the score, one on the name, both) run in
/// rounds, in a rotating order, each in a fresh store of 100,000 small records; and the cost is the ratio of
/// each row's time per write to the no-index row's of the same round, summarised over the rounds with its
/// distribution-free interval, so that a slow minute moves both sides of a ratio.
/// </summary>
/// <remarks>
/// Every write moves its record in every index: the writes follow one another in each record's chain of versions
/// (each the <see cref="Data.Next"/> of the one before, renamed), so that no write stores a value a record already
/// has. The warm-up (the JIT, the thread pool's growth, the first write's wait for the writer's slot table) is untimed
/// and writes the same records in every row. Each row also records the process's CPU time over its timed writes (every
/// thread's, so that work moved from one thread to another does not hide) and the collector's pauses, which say where
/// an index's cost goes: into work, or into waiting; and, from the store's own instruments (<see cref="CommitMeter"/>),
/// the writes per commit group and the share of the time the writer spent committing, which say whether the writer,
/// which keeps the indexes, is what the callers wait for.
/// </remarks>
internal static class UpkeepMix
{
    /// <summary>Concurrent callers, each awaiting its own upserts one at a time.</summary>
    public const int Callers = 64;

    /// <summary>The row that keeps no index.</summary>
    public const string NoIndex = "none";

    /// <summary>The row that keeps the index on the score alone.</summary>
    public const string Score = "score";

    /// <summary>The row that keeps the index on the name alone.</summary>
    public const string Name = "name";

    /// <summary>The row that keeps both indexes.</summary>
    public const string ScoreAndName = "score+name";

    /// <summary>
    /// The rows: the indexes each keeps. Each index alone, because the goal is per index and the two cost a write very
    /// differently (a number against text), and the two together.
    /// </summary>
    public static readonly string[] Rows = [NoIndex, Score, Name, ScoreAndName];

    /// <summary>Rounds in a default <c>upkeep</c> or <c>all</c> run: twelve, whose interval of the median covers it at 96%.</summary>
    public static int DefaultRuns => Scale.Dry ? 2 : 12;

    private static int Records => Scale.Records(PointReadBenchmarks.StoreRecords);

    private static int WarmUpWrites => Scale.Dry ? 64 : 16_384;

    /// <summary>
    /// Enough writes that the collector runs in every row, more than once: a write allocates about 0.5–0.8 KB, and with
    /// a quarter of these writes some rows saw no collection while others paused a few hundred ms for one, so that the
    /// ratios said mostly which rows a collection fell in.
    /// </summary>
    private static int TimedWrites => Scale.Dry ? 256 : 524_288;

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
        foreach (var kept in Rows)
        {
            Measure(0, kept, records, warmUp, timed);
        }

        var rows = new List<UpkeepRow>();
        for (var run = 1; run <= runs; run++)
        {
            for (var i = 0; i < Rows.Length; i++)
            {
                rows.Add(Measure(run, Rows[(run - 1 + i) % Rows.Length], records, warmUp, timed));
                Console.WriteLine($"// upkeep, run {run} of {runs}: {rows[^1].Kept}, {rows[^1].NsPerWrite:N0} ns per write, {rows[^1].CpuNsPerWrite:N0} ns of CPU, {rows[^1].PauseSeconds * 1e3:N0} ms of the collector's pauses, {rows[^1].AllocatedBytesPerWrite:N0} B allocated per write");
            }
        }

        Directory.CreateDirectory(resultsFolder);
        File.WriteAllText(Path.Combine(resultsFolder, "upkeep.csv"), UpkeepRow.ToCsv(rows));
        File.WriteAllText(Path.Combine(resultsFolder, "upkeep.md"), ToMarkdown(rows));
        return rows;
    }

    /// <summary>Row <paramref name="kept"/>'s time per write over the no-index row's of the same round, one ratio per round; null when not measured.</summary>
    public static Figure? Ratio(IReadOnlyList<UpkeepRow> rows, string kept) =>
        RoundRatios.Of(rows, r => r.Run, r => r.Kept == kept, r => r.Kept == NoIndex, r => r.NsPerWrite);

    /// <summary>What row <paramref name="kept"/> keeps, in words.</summary>
    public static string Describe(string kept) => kept switch
    {
        NoIndex => "none",
        Score => "the score",
        Name => "the name",
        ScoreAndName => "the score and the name",
        _ => kept,
    };

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

    private static UpkeepRow Measure(int run, string kept, SmallRecord[] records, SmallRecord[] warmUp, SmallRecord[] timed)
    {
        var directory = Paths.FreshDirectory(Paths.StoresRoot, $"upkeep-{Guid.NewGuid():n}");
        try
        {
            var (store, collection) = Peers.Stellar.OpenSmall(directory, Peers.Stellar.Options(Durability.WriteThrough));
            try
            {
                collection.BulkImportAsync(records).GetAwaiter().GetResult();
                if (kept is Score or ScoreAndName)
                {
                    collection.Index("by-score", r => r.Score).Ready.GetAwaiter().GetResult();
                }

                if (kept is Name or ScoreAndName)
                {
                    collection.Index("by-name", r => r.Name).Ready.GetAwaiter().GetResult();
                }

                Write(collection, warmUp);
                using var commits = new CommitMeter();
                using var process = Process.GetCurrentProcess();
                var cpu = process.TotalProcessorTime;
                var paused = GC.GetTotalPauseDuration();
                var allocated = GC.GetTotalAllocatedBytes(precise: true);
                var (groups, committing) = (commits.Groups, commits.CommitSeconds);
                var clock = Stopwatch.StartNew();
                Write(collection, timed);
                var elapsed = clock.Elapsed;
                process.Refresh();
                return new UpkeepRow(
                    run, kept, Callers, timed.Length, elapsed.TotalSeconds, (process.TotalProcessorTime - cpu).TotalSeconds, (GC.GetTotalPauseDuration() - paused).TotalSeconds,
                    GC.GetTotalAllocatedBytes(precise: true) - allocated, commits.Groups - groups, commits.CommitSeconds - committing);
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
        text.AppendLine(CultureInfo.InvariantCulture, $"{Callers} callers upserting (WriteThrough) into a fresh store of {Records:N0} small records per row and run, every write moving its record in every index; {TimedWrites:N0} timed writes after {WarmUpWrites:N0} untimed ones; {runs} round(s) after one that is not reported, the rows of a round in a rotating order. Each cell is the median over the rounds with its 95% interval in brackets (distribution-free, from the rounds' order statistics); a ratio is taken per round, against the no-index row of the same round. The CPU time is the process's (every thread's) over the timed writes; the pauses are the collector's over the same writes, during which every thread stops; the bytes allocated are every thread's over the same writes, per write; the writes per group and the writer's share of the time in commits (encode, append, apply and publish, the indexes' upkeep included) come from the store's own instruments.");
        text.AppendLine();
        text.AppendLine("| Indexes kept | ns per write | ns of CPU per write (every thread) | ms of the collector's pauses | B allocated per write | writes per commit group | writer's share of the time in commits | time per write ÷ no index's, per round | Goal | Status |");
        text.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---|---|");
        foreach (var kept in Rows)
        {
            var of = rows.Where(r => r.Kept == kept).ToList();
            var time = Figure.Of(of.Select(r => r.NsPerWrite).ToList());
            var cpu = Figure.Of(of.Select(r => r.CpuNsPerWrite).ToList());
            var pauses = Figure.Of(of.Select(r => r.PauseSeconds * 1e3).ToList());
            var allocated = Figure.Of(of.Select(r => r.AllocatedBytesPerWrite).ToList());
            var perGroup = Figure.Of(of.Select(r => r.WritesPerGroup).ToList());
            var committing = Figure.Of(of.Select(r => r.CommitShare).ToList());
            var ratio = kept == NoIndex ? null : Ratio(rows, kept);
            var target = Target(of[0].Indexes);
            var cost = kept == NoIndex ? "– | – | –"
                : string.Create(CultureInfo.InvariantCulture, $"{Units.UnitSummary.Decimal(ratio)} | ≤ {target}× | {RoundRatios.AtMost(ratio, target)}");
            text.AppendLine(CultureInfo.InvariantCulture, $"| {Describe(kept)} | {time} | {cpu} | {pauses} | {allocated} | {Units.UnitSummary.Decimal(perGroup)} | {Units.UnitSummary.Decimal(committing)} | {cost} |");
        }

        return text.ToString();
    }
}
