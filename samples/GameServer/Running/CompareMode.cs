using System.Globalization;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// The same game twice, back to back in this process: first with the state in dictionaries (no persistence), then
/// in the store. The bots are seeded by their number, so both runs play the same game; the closing lines give what
/// persistence costs the tick (the p99 ratio) and the process's memory.
/// </summary>
internal static class CompareMode
{
    public static async Task<int> RunAsync(RunOptions options, TextWriter output, CancellationToken cancellationToken)
    {
        // A short game of each kind first, discarded, so that neither measured run pays for the JIT and first
        // allocations alone.
        output.WriteLine("warming up: a short game of each kind, not measured");
        var warmUp = options with { Duration = TimeSpan.FromSeconds(2), DataDirectory = null };
        await GameRun.RunAsync(warmUp with { NoPersistence = true }, TextWriter.Null, cancellationToken).ConfigureAwait(false);
        await GameRun.RunAsync(warmUp with { NoPersistence = false }, TextWriter.Null, cancellationToken).ConfigureAwait(false);

        var pairs = Math.Max(1, options.Pairs);
        var ratios = new List<double>();
        var succeeded = true;
        for (var pair = 1; pair <= pairs; pair++)
        {
            var of = pairs > 1 ? $"pair {pair} of {pairs}, " : "";
            output.WriteLine($"== {of}run 1 of 2: without persistence ==");
            var baseline = await GameRun.RunAsync(options with { NoPersistence = true }, output, cancellationToken).ConfigureAwait(false);
            output.WriteLine();
            output.WriteLine($"== {of}run 2 of 2: with the store ==");
            var persisted = await GameRun.RunAsync(options with { NoPersistence = false }, output, cancellationToken).ConfigureAwait(false);

            output.WriteLine();
            output.WriteLine($"== {of}compare ==");
            output.WriteLine("                         tick p50   tick p99   tick max   over budget   resident   managed heap   gc pause");
            Row(output, "no persistence", baseline);
            Row(output, $"store ({options.Durability})", persisted);
            output.WriteLine($"slowest ticks without the store: {Summary.SlowestTicks(baseline.Ticks.Slowest)}");
            output.WriteLine($"slowest ticks with the store:    {Summary.SlowestTicks(persisted.Ticks.Slowest)}");
            var ratio = baseline.Ticks.P99 > 0 ? persisted.Ticks.P99 / baseline.Ticks.P99 : double.NaN;
            ratios.Add(ratio);
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"tick p99 with the store / without: {ratio:N2}x"));
            output.WriteLine();
            succeeded &= baseline.Succeeded && persisted.Succeeded;
        }

        output.WriteLine(RatioLine(ratios));
        return succeeded ? 0 : 1;
    }

    /// <summary>
    /// The median of the pairs' tick p99 ratios and, from six pairs up, the distribution-free interval that covers the
    /// true median with at least 95% (the lowest and highest ratio of six pairs: 1 - 2/2^6 = 96.9%).
    /// </summary>
    internal static string RatioLine(IReadOnlyList<double> ratios)
    {
        var sorted = ratios.Order().ToArray();
        var n = sorted.Length;
        var median = n % 2 == 1 ? sorted[n / 2] : (sorted[(n / 2) - 1] + sorted[n / 2]) / 2;
        var all = string.Join(", ", ratios.Select(r => r.ToString("N2", CultureInfo.InvariantCulture)));
        var interval = n >= 6
            ? string.Create(CultureInfo.InvariantCulture, $", 95% interval {sorted[0]:N2}–{sorted[^1]:N2}")
            : ", no interval (fewer than 6 pairs: run --pairs 6 before trusting a ratio)";
        return string.Create(CultureInfo.InvariantCulture, $"tick p99 ratio over {n} pair(s): median {median:N2}x{interval} (each pair: {all})");
    }

    private static void Row(TextWriter output, string name, RunResult result)
    {
        var t = result.Ticks;
        var m = result.Memory;
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{name,-22} {t.P50,7:N2} ms {t.P99,7:N2} ms {t.Max,7:N2} ms {t.OverBudget,11:N0}   {Format.Bytes(m.ResidentBytes),9}   {Format.Bytes(m.ManagedHeapBytes),12}   {m.GcPause.TotalMilliseconds,5:N0} ms"));
    }
}
