using System.Globalization;
using Stellar.Store.Benchmarks.Indexes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Open;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>
/// The goals for ordered indexes: a top-100 by index against today's scan-and-sort and against SQLite and LiteDB with
/// an index on the same field, what keeping indexes costs 64 callers' writes, and what two indexes add to an open: the
/// last two from BenchmarkDotNet's rows, and from the <c>upkeep</c> and <c>opens</c> verbs' rows side by side when they ran
/// (the opens both in one process and each in a fresh one, as a server restarts).
/// </summary>
internal sealed class IndexGoals(Goals goals, IReadOnlyList<UpkeepRow>? upkeep = null, IReadOnlyList<OpenPairRow>? opens = null, IReadOnlyList<OpenPairRow>? freshOpens = null)
{
    public IEnumerable<GoalRow> Evaluate()
    {
        var index = goals.Find("TopN", "Stellar_IndexTop");
        var scan = goals.Find("TopN", "Stellar_ScanAndSort");
        var sqlite = goals.Find("TopN", "Sqlite_IndexTop");
        var lite = goals.Find("TopN", "LiteDb_IndexTop");
        yield return Goals.AtLeast("top-100 of 100,000 by an index ≥ 1,000× faster than scan-and-sort", scan, index, 1_000,
            $"scan-and-sort {Goals.Time(scan)} / index Top {Goals.Time(index)}");
        yield return Goals.AtLeast("top-100 of 100,000 by an index ≥ 20× faster than SQLite with an index on the field", sqlite, index, 20,
            $"SQLite ORDER BY ... LIMIT over an index {Goals.Time(sqlite)} / ours {Goals.Time(index)}");
        yield return Goals.AtLeast("top-100 of 100,000 by an index ≥ 20× faster than LiteDB with an index on the field", lite, index, 20,
            $"LiteDB OrderByDescending.Limit over an index {Goals.Time(lite)} / ours {Goals.Time(index)}");

        var none = goals.Find("IndexMaintenance", "Stellar_WriteThrough", ("Indexes", 0));
        foreach (var (count, target) in new[] { (1, 1 / 0.85), (2, 1 / 0.70) })
        {
            var kept = goals.Find("IndexMaintenance", "Stellar_WriteThrough", ("Indexes", count));
            yield return Goals.AtMost($"keeping {count} index{(count == 1 ? "" : "es")} costs ≤ {15 * count}% of 64 callers' write throughput (WriteThrough)", kept, none, Math.Round(target, 3),
                $"time per write with {count}: {Goals.Time(kept)} / without: {Goals.Time(none)} (≤ {Math.Round(target, 3)}× the time is ≥ {100 - (15 * count)}% of the throughput)");
        }

        foreach (var kept in UpkeepMix.Rows.Where(r => r != UpkeepMix.NoIndex))
        {
            yield return Paired(kept);
        }

        var plain = goals.Find("Open", "Stellar_Plain");
        var indexed = goals.Find("Open", "Stellar_Plain_TwoIndexes");
        yield return Goals.AtMost("open of 1,000,000 records with two indexes built ≤ 1.3× the open without", indexed, plain, 1.3,
            $"open + two indexes {Goals.Time(indexed)} / open {Goals.Time(plain)}");

        yield return SideBySide("open of 1,000,000 records with two indexes built ≤ 1.3× the open without, side by side", opens, "opens verb not run", "`opens` verb");
        yield return SideBySide("open of 1,000,000 records with two indexes built ≤ 1.3× the open without, each open in a fresh process (a server restart)", freshOpens, "opens verb not run fresh", "`opens` verb with `fresh`");
    }

    /// <summary>The open goal from the rounds of the <c>opens</c> verb in <paramref name="rows"/>: the ratio taken per round, judged on its interval.</summary>
    private static GoalRow SideBySide(string goal, IReadOnlyList<OpenPairRow>? rows, string notRun, string verb)
    {
        var target = $"≤ {OpenPairMix.Target.ToString(CultureInfo.InvariantCulture)}×";
        return rows is null || rows.Count == 0 || OpenPairMix.Ratio(rows) is not { } ratio
            ? new GoalRow(goal, $"no results of the {verb} in this run", null, null, null, target, notRun)
            : new GoalRow(goal, $"open + two indexes over the open without, per round, median of {ratio.Samples} rounds", ratio.Median, ratio.Low, ratio.High, target,
                RoundRatios.AtMost(ratio, OpenPairMix.Target));
    }

    /// <summary>The upkeep goal of row <paramref name="kept"/> from the <c>upkeep</c> verb: the ratio taken per round, judged on its interval.</summary>
    private GoalRow Paired(string kept)
    {
        var count = kept.Split('+').Length;
        var goal = $"keeping the index{(count == 1 ? "" : "es")} on {UpkeepMix.Describe(kept)} costs ≤ {15 * count}% of {UpkeepMix.Callers} callers' write throughput (WriteThrough), rows side by side";
        var target = UpkeepMix.Target(count);
        var bound = $"≤ {target.ToString(CultureInfo.InvariantCulture)}×";
        if (upkeep is null || upkeep.Count == 0 || UpkeepMix.Ratio(upkeep, kept) is not { } ratio)
        {
            return new GoalRow(goal, "no upkeep results for this row in this run (`upkeep` verb)", null, null, null, bound, "upkeep verb not run");
        }

        return new GoalRow(goal, $"time per write with {UpkeepMix.Describe(kept)} indexed over without, per round, median of {ratio.Samples} rounds", ratio.Median, ratio.Low, ratio.High, bound,
            RoundRatios.AtMost(ratio, target));
    }
}
