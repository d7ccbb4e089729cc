using System.Globalization;
using System.Text;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Infrastructure;

namespace Stellar.Store.Benchmarks.Units;

/// <summary>
/// The <c>units</c> verb's runs summarised: each figure the median over the runs with its distribution-free 95%
/// interval (<see cref="Figure"/>), and the ratios taken per round (the two rows that ran side by side) and then
/// summarised the same way, so that a slow round of the machine moves both sides of its ratio.
/// </summary>
internal static class UnitSummary
{
    /// <summary>Cross-collection units/s over single-collection batches/s of <paramref name="mode"/>, one ratio per round; null when not measured.</summary>
    public static Figure? CrossOverSingle(IReadOnlyList<UnitRow> rows, string mode) =>
        PerRound(rows, mode, UnitMix.Cross, UnitMix.Single, r => r.UnitsPerSecond);

    /// <summary>Time per store-snapshot cut over time per cut of collection snapshots, one ratio per round; null when not measured.</summary>
    public static Figure? StoreOverCollectionSnapshots(IReadOnlyList<UnitRow> rows) =>
        PerRound(rows, UnitMix.ReadMode, UnitMix.StoreSnapshot, UnitMix.CollectionSnapshots, r => 1 / r.UnitsPerSecond);

    /// <summary>One figure of the rows of <paramref name="mode"/> and <paramref name="kind"/>; null when there are none.</summary>
    public static Figure? Of(IReadOnlyList<UnitRow> rows, string mode, string kind, Func<UnitRow, double> figure)
    {
        var values = rows.Where(r => r.Mode == mode && r.Kind == kind).Select(figure).ToList();
        return values.Count == 0 ? null : Figure.Of(values);
    }

    public static string ToMarkdown(IReadOnlyList<UnitRow> rows, TimeSpan duration)
    {
        var runs = rows.Select(r => r.Run).Distinct().Count();
        var md = new StringBuilder();
        md.AppendLine(CultureInfo.InvariantCulture, $"{UnitMix.Callers} callers, each writing units of 2–5 small records (upserts over {UnitMix.KeysPerCaller} keys per caller and collection) as fast as they complete, for {duration.TotalSeconds:0.#} s per run after an untimed warm-up, in a fresh store of {UnitMix.Collections} collections per row and run; {runs} run(s) in rounds. `{UnitMix.Single}`: a unit's records as one `collection.WriteAsync` batch into one collection; `{UnitMix.Cross}`: the same records, drawn from the same seed, over 2–4 collections with one `store.WriteAsync`. Each cell is the median over the runs with its 95% interval in brackets (distribution-free, from the runs' order statistics; none with one run). Units per round and time per round are the coordinator's rounds during the run (cross rows only); the time per round is the run's length over its rounds, so it includes the coordinator's idle time between rounds.");
        md.AppendLine();
        md.AppendLine("| Mode | Row | Units/s | Records/s | Units per round | µs per round |");
        md.AppendLine("|---|---|---:|---:|---:|---:|");
        foreach (var mode in UnitMix.Modes.Select(m => m.ToString()))
        {
            foreach (var kind in new[] { UnitMix.Single, UnitMix.Cross })
            {
                if (Of(rows, mode, kind, r => r.UnitsPerSecond) is not { } units)
                {
                    continue;
                }

                var rounds = kind == UnitMix.Cross && rows.Any(r => r.Mode == mode && r.Kind == kind && r.Rounds > 0);
                md.AppendLine(CultureInfo.InvariantCulture,
                    $"| {mode} | {kind} | {units} | {Of(rows, mode, kind, r => r.RecordsPerSecond)} | {(rounds ? Decimal(Of(rows, mode, kind, r => (double)r.Units / Math.Max(1, r.Rounds))) : "–")} | {(rounds ? Of(rows, mode, kind, r => r.Seconds * 1e6 / Math.Max(1, r.Rounds)).ToString() : "–")} |");
            }
        }

        md.AppendLine();
        md.AppendLine("| Mode | cross-collection units/s ÷ single-collection batches/s, per round | Goal ≥ 0.5× |");
        md.AppendLine("|---|---:|---|");
        foreach (var mode in UnitMix.Modes.Select(m => m.ToString()))
        {
            var ratio = CrossOverSingle(rows, mode);
            md.AppendLine(CultureInfo.InvariantCulture, $"| {mode} | {Decimal(ratio)} | {Judge(ratio, 0.5)} |");
        }

        if (Of(rows, UnitMix.ReadMode, UnitMix.StoreSnapshot, r => r.UnitsPerSecond) is { } store
            && Of(rows, UnitMix.ReadMode, UnitMix.CollectionSnapshots, r => r.UnitsPerSecond) is { } collections)
        {
            md.AppendLine();
            md.AppendLine(CultureInfo.InvariantCulture, $"Snapshot reads, one thread, a store of {UnitMix.Collections} collections not written meanwhile; a cut is one snapshot and one `Get` in each collection:");
            md.AppendLine();
            md.AppendLine("| Row | Cuts/s | ns per cut |");
            md.AppendLine("|---|---:|---:|");
            md.AppendLine(CultureInfo.InvariantCulture, $"| `store.Snapshot()` + `Of(c).Get` × {UnitMix.Collections} | {store} | {Of(rows, UnitMix.ReadMode, UnitMix.StoreSnapshot, r => r.Seconds * 1e9 / r.Units)} |");
            md.AppendLine(CultureInfo.InvariantCulture, $"| `c.Snapshot().Get` × {UnitMix.Collections} | {collections} | {Of(rows, UnitMix.ReadMode, UnitMix.CollectionSnapshots, r => r.Seconds * 1e9 / r.Units)} |");
            md.AppendLine(CultureInfo.InvariantCulture, $"| time ratio store / collection snapshots, per round | {Decimal(StoreOverCollectionSnapshots(rows))} | |");
        }

        return md.ToString();
    }

    /// <summary>Met or missed only when the whole interval is on one side of <paramref name="target"/> (a floor).</summary>
    public static string Judge(Figure? ratio, double target) =>
        ratio is not { } r ? "not measured"
        : r.Samples < 2 ? "inconclusive (one run, no interval)"
        : r.Low >= target ? "met"
        : r.High < target ? "**MISSED**"
        : "inconclusive (the interval spans the target)";

    /// <summary>A ratio or small figure with two decimals and its interval.</summary>
    public static string Decimal(Figure? figure) => figure is not { } f ? "n/a"
        : f.Samples < 2 ? f.Median.ToString("N2", CultureInfo.InvariantCulture)
        : string.Create(CultureInfo.InvariantCulture, $"{f.Median:N2} [{f.Low:N2}–{f.High:N2}]");

    private static Figure? PerRound(IReadOnlyList<UnitRow> rows, string mode, string numerator, string denominator, Func<UnitRow, double> value) =>
        RoundRatios.Of(rows, r => r.Run, r => r.Mode == mode && r.Kind == numerator, r => r.Mode == mode && r.Kind == denominator, value);
}
