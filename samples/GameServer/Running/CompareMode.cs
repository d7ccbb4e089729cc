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

        output.WriteLine("== run 1 of 2: without persistence ==");
        var baseline = await GameRun.RunAsync(options with { NoPersistence = true }, output, cancellationToken).ConfigureAwait(false);
        output.WriteLine();
        output.WriteLine("== run 2 of 2: with the store ==");
        var persisted = await GameRun.RunAsync(options with { NoPersistence = false }, output, cancellationToken).ConfigureAwait(false);

        output.WriteLine();
        output.WriteLine("== compare ==");
        output.WriteLine("                         tick p50   tick p99   tick max   over budget   resident   managed heap   gc pause");
        Row(output, "no persistence", baseline);
        Row(output, $"store ({options.Durability})", persisted);
        var ratio = baseline.Ticks.P99 > 0 ? persisted.Ticks.P99 / baseline.Ticks.P99 : double.NaN;
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"tick p99 with the store / without: {ratio:N2}x (one pair of runs on a machine that may be busy: run it more than once before trusting a ratio)"));
        return baseline.Succeeded && persisted.Succeeded ? 0 : 1;
    }

    private static void Row(TextWriter output, string name, RunResult result)
    {
        var t = result.Ticks;
        var m = result.Memory;
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{name,-22} {t.P50,7:N2} ms {t.P99,7:N2} ms {t.Max,7:N2} ms {t.OverBudget,11:N0}   {Format.Bytes(m.ResidentBytes),9}   {Format.Bytes(m.ManagedHeapBytes),12}   {m.GcPause.TotalMilliseconds,5:N0} ms"));
    }
}
