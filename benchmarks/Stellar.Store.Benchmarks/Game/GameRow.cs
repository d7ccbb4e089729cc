using System.Globalization;
using System.Text;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>One run of one store in the game mix; latencies in microseconds from the intended start.</summary>
internal sealed record GameRow(string Store, string Pairing, int Target, double UpdatesPerSecond, double WriteP50, double WriteP99,
    long MissedUpdates, double ReadsPerSecond, double ReadP50, double ReadP99, long MissedReads, long DiskKiB, int Run = 1)
{
    private const string Header =
        "Run,Store,Pairing,TargetUpdatesPerSecond,UpdatesPerSecond,WriteP50Us,WriteP99Us,MissedUpdates,ReadsPerSecond,ReadP50Us,ReadP99Us,MissedReads,DiskKiB";

    /// <summary>The row of one run: rates over the elapsed time, percentiles over every update and query, missed ones included.</summary>
    public static GameRow From(string store, string pairing, int target, double elapsedSeconds, Schedule[] writes, Schedule[] reads)
    {
        var writeLatencies = writes.SelectMany(s => s.Latencies).Order().ToArray();
        var readLatencies = reads.SelectMany(s => s.Latencies).Order().ToArray();
        var missedUpdates = writes.Sum(s => s.MissedCount);
        var missedReads = reads.Sum(s => s.MissedCount);
        return new GameRow(store, pairing, target, (writeLatencies.Length - missedUpdates) / elapsedSeconds,
            Percentile(writeLatencies, 0.50), Percentile(writeLatencies, 0.99), missedUpdates,
            (readLatencies.Length - missedReads) / elapsedSeconds, Percentile(readLatencies, 0.50), Percentile(readLatencies, 0.99), missedReads, 0);
    }

    public static string ToCsv(IEnumerable<GameRow> rows)
    {
        var csv = new StringBuilder(Header).Append('\n');
        foreach (var r in rows)
        {
            csv.AppendLine(string.Join(",", new object[] { r.Run, r.Store, r.Pairing, r.Target, r.UpdatesPerSecond, r.WriteP50, r.WriteP99, r.MissedUpdates, r.ReadsPerSecond, r.ReadP50, r.ReadP99, r.MissedReads, r.DiskKiB }
                .Select(v => Convert.ToString(v, CultureInfo.InvariantCulture))));
        }

        return csv.ToString();
    }

    /// <summary>The rows of a <c>game-mix.csv</c> written by <see cref="ToCsv"/>; none when the file does not exist.</summary>
    public static List<GameRow> Load(string path) =>
        Report.Csv.Rows(path, Header).Select(c => new GameRow(
            c[1], c[2], int.Parse(c[3], CultureInfo.InvariantCulture), D(c[4]), D(c[5]), D(c[6]), long.Parse(c[7], CultureInfo.InvariantCulture),
            D(c[8]), D(c[9]), D(c[10]), long.Parse(c[11], CultureInfo.InvariantCulture), long.Parse(c[12], CultureInfo.InvariantCulture),
            int.Parse(c[0], CultureInfo.InvariantCulture))).ToList();

    private static double D(string cell) => double.Parse(cell, CultureInfo.InvariantCulture);

    private static double Percentile(double[] sorted, double p) =>
        sorted.Length == 0 ? double.NaN : sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(p * sorted.Length) - 1)];
}
