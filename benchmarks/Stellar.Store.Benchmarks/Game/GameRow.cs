using System.Globalization;
using System.Text;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>One store's line of the game-mix table; latencies in microseconds from the intended start.</summary>
internal sealed record GameRow(string Store, string Pairing, int Target, double UpdatesPerSecond, double WriteP50, double WriteP99,
    long MissedUpdates, double ReadsPerSecond, double ReadP50, double ReadP99, long MissedReads, long DiskKiB)
{
    private const string Header =
        "Store,Pairing,TargetUpdatesPerSecond,UpdatesPerSecond,WriteP50Us,WriteP99Us,MissedUpdates,ReadsPerSecond,ReadP50Us,ReadP99Us,MissedReads,DiskKiB";

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
            csv.AppendLine(string.Join(",", new object[] { r.Store, r.Pairing, r.Target, r.UpdatesPerSecond, r.WriteP50, r.WriteP99, r.MissedUpdates, r.ReadsPerSecond, r.ReadP50, r.ReadP99, r.MissedReads, r.DiskKiB }
                .Select(v => Convert.ToString(v, CultureInfo.InvariantCulture))));
        }

        return csv.ToString();
    }

    public static string ToMarkdown(IEnumerable<GameRow> rows, int players, TimeSpan duration)
    {
        var md = new StringBuilder();
        md.AppendLine(CultureInfo.InvariantCulture, $"{players:N0} players updated at {GameMix.TickHz} Hz by {GameMix.Writers} writers (one batch per writer and tick where the store has batches), {GameMix.Readers} readers querying the top {GameMix.TopCount} at {GameMix.TickHz} Hz each, {duration.TotalSeconds:N0} s per store, one run each (no interval). Latency from each operation's intended start; \"missed\" operations were due before the deadline but never started, and count in the percentiles with their wait so far (so a store with misses has lower-bound percentiles, marked ≥).");
        md.AppendLine();
        md.AppendLine("| Store | Pairing | Updates/s (target) | Write p50 µs | Write p99 µs | Missed updates | Reads/s | Read p50 µs | Read p99 µs | Missed reads | Disk KiB |");
        md.AppendLine("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var r in rows)
        {
            var w = r.MissedUpdates > 0 ? "≥ " : "";
            var q = r.MissedReads > 0 ? "≥ " : "";
            md.AppendLine(CultureInfo.InvariantCulture,
                $"| {r.Store} | {r.Pairing} | {r.UpdatesPerSecond:N0} ({r.Target:N0}) | {w}{r.WriteP50:N0} | {w}{r.WriteP99:N0} | {r.MissedUpdates:N0} | {r.ReadsPerSecond:N0} | {q}{r.ReadP50:N0} | {q}{r.ReadP99:N0} | {r.MissedReads:N0} | {r.DiskKiB:N0} |");
        }

        return md.ToString();
    }

    private static double Percentile(double[] sorted, double p) =>
        sorted.Length == 0 ? double.NaN : sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(p * sorted.Length) - 1)];
}
