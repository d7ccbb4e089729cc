using System.Globalization;
using System.Text;
using Stellar.Store.Benchmarks.Infrastructure;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>
/// One store's runs of the game mix summarised: the median of each figure over the runs, with its distribution-free
/// 95% interval (<see cref="MedianInterval"/>; null with a single run).
/// </summary>
internal sealed record GameSummary(string Store, string Pairing, int Target, int Runs, Figure UpdatesPerSecond, Figure WriteP50, Figure WriteP99,
    double MissedUpdates, Figure ReadsPerSecond, Figure ReadP50, Figure ReadP99, double MissedReads, double DiskKiB)
{
    /// <summary>One summary per store, in the order the stores first appear in <paramref name="rows"/>.</summary>
    public static List<GameSummary> Of(IReadOnlyList<GameRow> rows) =>
        rows.GroupBy(r => r.Store).Select(g =>
        {
            var runs = g.ToList();
            Figure F(Func<GameRow, double> of) => Figure.Of(runs.Select(of).ToList());
            return new GameSummary(g.Key, runs[0].Pairing, runs[0].Target, runs.Count, F(r => r.UpdatesPerSecond), F(r => r.WriteP50), F(r => r.WriteP99),
                Median(runs.Select(r => (double)r.MissedUpdates)), F(r => r.ReadsPerSecond), F(r => r.ReadP50), F(r => r.ReadP99),
                Median(runs.Select(r => (double)r.MissedReads)), Median(runs.Select(r => (double)r.DiskKiB)));
        }).ToList();

    public static string ToMarkdown(IReadOnlyList<GameSummary> stores, int players, TimeSpan duration, int runs)
    {
        var md = new StringBuilder();
        md.AppendLine(CultureInfo.InvariantCulture, $"{players:N0} players updated at {GameMix.TickHz} Hz by {GameMix.Writers} writers (one batch per writer and tick where the store has batches), {GameMix.Readers} readers querying the top {GameMix.TopCount} at {GameMix.TickHz} Hz each, {duration.TotalSeconds:N0} s per run, {runs} run(s) per store in rounds. Each cell is the median over the runs with its 95% interval in brackets (distribution-free, from the runs' order statistics; none with one run). Latency from each operation's intended start (from its actual start when its wait woke before it); \"missed\" operations were due before the deadline but never started, and count in the percentiles with their wait so far (so a store with misses has lower-bound percentiles, marked ≥).");
        md.AppendLine();
        md.AppendLine("| Store | Pairing | Updates/s (target) | Write p50 µs | Write p99 µs | Missed updates | Reads/s | Read p50 µs | Read p99 µs | Missed reads | Disk KiB |");
        md.AppendLine("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var s in stores)
        {
            var w = s.MissedUpdates > 0 ? "≥ " : "";
            var q = s.MissedReads > 0 ? "≥ " : "";
            md.AppendLine(CultureInfo.InvariantCulture,
                $"| {s.Store} | {s.Pairing} | {s.UpdatesPerSecond} ({s.Target:N0}) | {w}{s.WriteP50} | {w}{s.WriteP99} | {s.MissedUpdates:N0} | {s.ReadsPerSecond} | {q}{s.ReadP50} | {q}{s.ReadP99} | {s.MissedReads:N0} | {s.DiskKiB:N0} |");
        }

        return md.ToString();
    }

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.Order().ToArray();
        return sorted.Length == 0 ? double.NaN : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }
}
