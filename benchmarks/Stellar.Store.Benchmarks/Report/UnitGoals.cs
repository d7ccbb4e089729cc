using System.Globalization;
using Stellar.Store.Benchmarks.Units;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>
/// The goal for writes across collections (the <c>units</c> verb): with 64 callers, units of 2–5 records over 2–4
/// collections reach at least half the throughput of single-collection batches of the same records, in each durability
/// mode apart. The ratio is taken per round, from the two rows that ran side by side, and judged on its interval.
/// </summary>
internal static class UnitGoals
{
    /// <summary>The floor: cross-collection units/s at least this share of single-collection batches/s.</summary>
    public const double Target = 0.5;

    public static IEnumerable<GoalRow> Evaluate(IReadOnlyList<UnitRow>? units)
    {
        foreach (var mode in UnitMix.Modes.Select(m => m.ToString()))
        {
            var goal = $"cross-collection units of 2–5 records, {UnitMix.Callers} callers ({mode}) ≥ 50% of the single-collection batch throughput";
            var ratio = units is null ? null : UnitSummary.CrossOverSingle(units, mode);
            if (ratio is not { } r)
            {
                yield return new GoalRow(goal, "no units results in this run (`units` verb)", null, null, null, "≥ 0.5×", "units verb not run");
                continue;
            }

            var cross = UnitSummary.Of(units!, mode, UnitMix.Cross, u => u.UnitsPerSecond);
            var single = UnitSummary.Of(units!, mode, UnitMix.Single, u => u.UnitsPerSecond);
            yield return new GoalRow(goal,
                $"units/s: cross {cross} / single {single}; the ratio per round, median of {r.Samples} rounds",
                r.Median, r.Low, r.High, $"≥ {Target.ToString(CultureInfo.InvariantCulture)}×", UnitSummary.Judge(r, Target));
        }
    }
}
