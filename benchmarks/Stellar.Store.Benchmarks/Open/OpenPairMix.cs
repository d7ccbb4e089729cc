using System.Diagnostics;
using System.Globalization;
using System.Text;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Open;

/// <summary>
/// The <c>opens</c> verb, a measured run rather than a BenchmarkDotNet benchmark: the open of 1,000,000 small records
/// with two indexes (on the score and on the name) against the open without, as <see cref="OpenBenchmarks"/>'s
/// <c>Stellar_Plain</c> and <c>Stellar_Plain_TwoIndexes</c> measure them, but side by side. BenchmarkDotNet runs the
/// two rows in processes of their own, one after the other, and the plain open alone moved between runs by more than
/// the indexes add; here one process opens the same store in rounds, each round once without and once with the
/// indexes (in alternating order), and the ratio is taken per round.
/// </summary>
/// <remarks>
/// <para>Each open is timed from <c>OpenAsync</c> until a point read returns (with the indexes, once both answer), after
/// a full collection, as BenchmarkDotNet forces one between iterations; the close after it is not timed. The open with
/// indexes takes the orders the close before kept, as <c>Stellar_Plain_TwoIndexes</c> does; a first round, not
/// reported, warms the JIT and keeps the orders the first timed open takes.</para>
/// <para>With <c>fresh</c>, each open runs in a fresh process of its own instead (<see cref="ChildVerb"/>), as a
/// server's restart opens its store: nothing compiled, no heap yet. One untimed open with the indexes keeps their
/// orders first; its results go to <c>opens-fresh.csv</c> and <c>opens-fresh.md</c>.</para>
/// <para>With <c>atload</c>, the indexed open declares the two indexes with the collection's load
/// (<see cref="StellarStore.GetCollection{TKey,TValue}(string, Func{TValue,TKey}, IndexDefinition{TValue}[])"/>) instead
/// of on the loaded collection; its results go to <c>opens-atload.*</c> (<c>opens-fresh-atload.*</c> with both).</para>
/// </remarks>
internal static class OpenPairMix
{
    /// <summary>The indexes the indexed open declares.</summary>
    public const int Indexed = 2;

    /// <summary>The verb that makes one timed open in a child process: the store's directory, the indexes to declare, and whether with the load.</summary>
    public const string ChildVerb = "opens-child";

    /// <summary>The goal: the open with two indexes at most this many times the open without.</summary>
    public const double Target = 1.3;

    /// <summary>Rounds in a default <c>opens</c> or <c>all</c> run: twelve, whose interval of the median covers it at 96%.</summary>
    public static int DefaultRuns => Scale.Dry ? 2 : 12;

    private static readonly IndexDefinition<int, SmallRecord> ByScore = new("by-score", r => r.Score);
    private static readonly IndexDefinition<string, SmallRecord> ByName = new("by-name", r => r.Name);

    private static int Records => OpenBenchmarks.StoreRecords;

    /// <summary>
    /// Builds the store, opens it <paramref name="runs"/> times each way in rounds (each open in a fresh process with
    /// <paramref name="fresh"/>), writes every open to <c>opens.csv</c> and the medians and the ratio with their
    /// intervals to <c>opens.md</c> in <paramref name="resultsFolder"/> (<c>opens-fresh.*</c> with <paramref name="fresh"/>,
    /// <c>opens-atload.*</c> with <paramref name="atLoad"/>, the indexes declared with the load).
    /// </summary>
    public static List<OpenPairRow> Run(string resultsFolder, int runs, bool fresh = false, bool atLoad = false)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(runs, 1);
        var directory = Paths.FreshDirectory(Paths.StoresRoot, "opens");
        try
        {
            var (created, records) = Peers.Stellar.OpenSmall(directory, Peers.Stellar.Options(Durability.WriteThrough));
            records.BulkImportAsync(Data.SmallRange(Records)).GetAwaiter().GetResult();
            created.DisposeAsync().AsTask().GetAwaiter().GetResult();

            Func<string, int, bool, double> open = fresh ? OpenFresh : Open;
            if (!fresh)
            {
                Open(directory, 0, false);
            }

            open(directory, Indexed, atLoad);
            var rows = new List<OpenPairRow>();
            for (var run = 1; run <= runs; run++)
            {
                foreach (var indexes in run % 2 == 1 ? new[] { 0, Indexed } : [Indexed, 0])
                {
                    rows.Add(new OpenPairRow(run, indexes, open(directory, indexes, atLoad)));
                    Console.WriteLine($"// opens{(fresh ? " (fresh processes)" : "")}{(atLoad ? " (declared with the load)" : "")}, run {run} of {runs}: {indexes} index(es), {rows[^1].Milliseconds:N1} ms");
                }
            }

            Directory.CreateDirectory(resultsFolder);
            var name = "opens" + (fresh ? "-fresh" : "") + (atLoad ? "-atload" : "");
            File.WriteAllText(Path.Combine(resultsFolder, $"{name}.csv"), OpenPairRow.ToCsv(rows));
            File.WriteAllText(Path.Combine(resultsFolder, $"{name}.md"), ToMarkdown(rows, fresh, atLoad));
            return rows;
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>The indexed open's time over the plain open's of the same round, one ratio per round; null when not measured.</summary>
    public static Figure? Ratio(IReadOnlyList<OpenPairRow> rows) =>
        RoundRatios.Of(rows, r => r.Run, r => r.Indexes == Indexed, r => r.Indexes == 0, r => r.Milliseconds);

    /// <summary>The child's side of <see cref="ChildVerb"/>: one <see cref="Open"/>, its milliseconds written as the last line.</summary>
    public static int Child(string[] args)
    {
        Console.WriteLine(Open(args[0], int.Parse(args[1], CultureInfo.InvariantCulture), args.Length > 2 && bool.Parse(args[2])).ToString("R", CultureInfo.InvariantCulture));
        return 0;
    }

    /// <summary>One <see cref="Open"/> in a fresh process: the time that process measured.</summary>
    private static double OpenFresh(string directory, int indexes, bool atLoad) =>
        double.Parse(ChildProcess.LastLine(ChildVerb, directory, indexes.ToString(CultureInfo.InvariantCulture), atLoad.ToString(CultureInfo.InvariantCulture)), CultureInfo.InvariantCulture);

    /// <summary>
    /// One open, timed until a point read returns (and, with the indexes, both answer); then the untimed close. With
    /// <paramref name="atLoad"/>, the indexes are declared with the collection's load, else on the loaded collection.
    /// </summary>
    private static double Open(string directory, int indexes, bool atLoad)
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        var probe = Math.Min(12_345, Records);
        var clock = Stopwatch.StartNew();
        var (store, records) = indexes == Indexed && atLoad
            ? Peers.Stellar.OpenSmall(directory, Peers.Stellar.Options(Durability.WriteThrough), ByScore, ByName)
            : Peers.Stellar.OpenSmall(directory, Peers.Stellar.Options(Durability.WriteThrough));
        try
        {
            if (indexes == Indexed)
            {
                var byScore = records.Index(ByScore);
                var byName = records.Index(ByName);
                Task.WhenAll(byScore.Ready, byName.Ready).GetAwaiter().GetResult();
            }

            if (records.Get(probe) is null)
            {
                throw new InvalidOperationException($"The opened store lost record {probe}.");
            }

            return clock.Elapsed.TotalMilliseconds;
        }
        finally
        {
            store.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    private static string ToMarkdown(IReadOnlyList<OpenPairRow> rows, bool fresh, bool atLoad)
    {
        var runs = rows.Select(r => r.Run).Distinct().Count();
        var plain = Figure.Of(rows.Where(r => r.Indexes == 0).Select(r => r.Milliseconds).ToList());
        var indexed = Figure.Of(rows.Where(r => r.Indexes == Indexed).Select(r => r.Milliseconds).ToList());
        var ratio = Ratio(rows);
        var text = new StringBuilder();
        var how = fresh
            ? $"each open in a fresh process of its own, as a server's restart opens its store (nothing compiled yet); {runs} round(s) after one untimed open with the indexes, each opening once each way in alternating order"
            : $"in one process; {runs} round(s) after one that is not reported, each opening once each way in alternating order, after a full collection";
        text.AppendLine(CultureInfo.InvariantCulture, $"The open of {Records:N0} small records (WriteThrough), timed until a point read returns, without indexes and with two (on the score and on the name, {(atLoad ? "declared with the collection's load" : "declared on the loaded collection")}, the name's built from the order the close before kept, until both answer), {how}. Each cell is the median over the rounds with its 95% interval in brackets (distribution-free, from the rounds' order statistics); the ratio is taken per round.");
        text.AppendLine();
        text.AppendLine("| Open | ms | ratio to the plain open, per round | Goal | Status |");
        text.AppendLine("|---|---:|---:|---|---|");
        text.AppendLine(CultureInfo.InvariantCulture, $"| plain | {plain} | – | – | – |");
        text.AppendLine(CultureInfo.InvariantCulture, $"| two indexes | {indexed} | {Units.UnitSummary.Decimal(ratio)} | ≤ {Target}× | {RoundRatios.AtMost(ratio, Target)} |");
        return text.ToString();
    }
}
