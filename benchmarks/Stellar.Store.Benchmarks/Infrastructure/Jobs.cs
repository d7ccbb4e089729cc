using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// The jobs. Every row is measured in <see cref="Launches"/> separate processes so that the interval covers
/// process-level effects (JIT, GC heap layout, file placement) and not only iteration-to-iteration noise; the
/// report gives the median and a distribution-free 95% interval of it (see <see cref="MedianInterval"/>). A dry run
/// replaces every job with one in-process invocation (see <see cref="Scale.Dry"/>).
/// </summary>
public static class Jobs
{
    /// <summary>Processes per row.</summary>
    public const int Launches = 2;

    /// <summary>
    /// One invocation per iteration on a fresh store: for workloads that write. <paramref name="iterations"/> per
    /// launch: 3 gives 6 samples (interval: smallest to largest, 97% coverage), 5 gives 10 (second smallest to second
    /// largest, 98%).
    /// </summary>
    public static Job Write(int iterations) => Scale.Dry
        ? Dry
        : Job.Default
            .WithStrategy(RunStrategy.Monitoring)
            .WithLaunchCount(Launches)
            .WithWarmupCount(1)
            .WithIterationCount(iterations)
            .WithInvocationCount(1)
            .WithUnrollFactor(1)
            .WithId("Write");

    /// <summary>Throughput measurement for reads and pure CPU work: 2 launches of 3 warmups and 5 iterations.</summary>
    public static Job Read => Scale.Dry
        ? Dry
        : Job.Default
            .WithLaunchCount(Launches)
            .WithWarmupCount(3)
            .WithIterationCount(5)
            .WithId("Read");

    /// <summary>Every benchmark once, in-process, with no warmup: proves the suite runs, measures nothing.</summary>
    public static Job Dry { get; } = Job.Dry
        .WithWarmupCount(0)
        .WithToolchain(InProcessEmitToolchain.Instance)
        .WithId("Dry");
}

/// <summary>Runs the class with <see cref="Jobs.Write"/>: a fresh store per iteration, one invocation each.</summary>
[AttributeUsage(AttributeTargets.Class)]
public sealed class WriteJobAttribute(int iterations = 5) : Attribute, IConfigSource
{
    /// <inheritdoc />
    public IConfig Config { get; } = ManualConfig.CreateEmpty().AddJob(Jobs.Write(iterations));
}

/// <summary>Runs the class with <see cref="Jobs.Read"/>.</summary>
[AttributeUsage(AttributeTargets.Class)]
public sealed class ReadJobAttribute : Attribute, IConfigSource
{
    /// <inheritdoc />
    public IConfig Config { get; } = ManualConfig.CreateEmpty().AddJob(Jobs.Read);
}
