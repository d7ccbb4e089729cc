namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>One run of the <c>indexbuild</c> verb (see <see cref="IndexBuildMix"/>).</summary>
/// <param name="Run">The run's number, from 1.</param>
/// <param name="BuildMs">From the declaration of the index to its <c>Ready</c>.</param>
/// <param name="WritesDuring">Writes that completed meanwhile.</param>
/// <param name="WritesPerSecondDuring">Those writes per second of the build.</param>
/// <param name="LongestDuringMs">The longest write under way at any time of the build, from its call to its completion.</param>
/// <param name="LongestBeforeMs">The longest write that completed in the second before the declaration.</param>
/// <param name="WritesPerSecondBefore">Writes per second in that second.</param>
/// <param name="GcPauseMs">The collector's pauses during the build, in all.</param>
public sealed record IndexBuildRow(int Run, double BuildMs, int WritesDuring, double WritesPerSecondDuring, double LongestDuringMs, double LongestBeforeMs, double WritesPerSecondBefore, double GcPauseMs);
