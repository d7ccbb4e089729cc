namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// Workload sizes. A dry run (environment variable <c>STELLAR_BENCH_DRY=1</c>, set by the benchmark test) runs every
/// benchmark once, in-process, on tiny stores, so the suite is checked for rot in seconds; figures from it mean nothing.
/// </summary>
public static class Scale
{
    /// <summary>The environment variable that selects the dry mode.</summary>
    public const string DryVariable = "STELLAR_BENCH_DRY";

    /// <summary>Whether this is a dry run.</summary>
    public static bool Dry => Environment.GetEnvironmentVariable(DryVariable) == "1";

    /// <summary>A record count: <paramref name="full"/> in a real run, a few hundred in a dry one.</summary>
    public static int Records(int full) => Dry ? Math.Min(full, 200 + (full / 5_000)) : full;

    /// <summary>Operations per invocation: <paramref name="full"/> in a real run, at most 8 in a dry one.</summary>
    public static int Ops(int full) => Dry ? Math.Min(full, 8) : full;
}
