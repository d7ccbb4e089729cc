using Stellar.Store.Benchmarks.Game;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// Ratios of two rows that ran side by side, round by round (the verbs that run their rows in rounds rather than in
/// processes of their own): one ratio per round, summarised as a median with its distribution-free interval, so that a
/// slow minute of the machine moves both sides of a ratio, and a goal judged on that interval.
/// </summary>
internal static class RoundRatios
{
    /// <summary>
    /// The value of the row of each round that <paramref name="numerator"/> picks over the value of the row of the same
    /// round that <paramref name="denominator"/> picks; null when no round has both.
    /// </summary>
    public static Figure? Of<TRow>(IEnumerable<TRow> rows, Func<TRow, int> round, Func<TRow, bool> numerator, Func<TRow, bool> denominator, Func<TRow, double> value)
    {
        var all = rows.ToList();
        var values = all.Where(numerator).Join(all.Where(denominator), round, round, (n, d) => value(n) / value(d)).ToList();
        return values.Count == 0 ? null : Figure.Of(values);
    }

    /// <summary>A ceiling goal (at most <paramref name="target"/>) is met or missed only when the whole interval is on one side of it.</summary>
    public static string AtMost(Figure? ratio, double target) =>
        ratio is not { } r ? "not measured"
        : r.Samples < 2 ? "inconclusive (one run, no interval)"
        : r.High <= target ? "met"
        : r.Low > target ? "**MISSED**"
        : "inconclusive (the interval spans the target)";
}
