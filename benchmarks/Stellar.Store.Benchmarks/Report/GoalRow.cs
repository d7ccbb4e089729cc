namespace Stellar.Store.Benchmarks.Report;

/// <summary>
/// One goal and where the measured rows put us: the ratio of medians and its interval (null when not measured or not
/// a ratio), and a status: met or missed only when the whole interval is on one side of the target.
/// </summary>
internal sealed record GoalRow(string Goal, string Measured, double? Ratio, double? Low, double? High, string Target, string Status);
