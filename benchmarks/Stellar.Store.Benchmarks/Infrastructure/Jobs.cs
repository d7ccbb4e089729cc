using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// The jobs, kept short because the build machine has 2 cores shared with other builds. A dry run replaces every
/// job with one in-process invocation (see <see cref="Scale.Dry"/>).
/// </summary>
public static class Jobs
{
    /// <summary>One invocation per iteration on a fresh store: for workloads that write.</summary>
    public static Job Write(int iterations) => Scale.Dry
        ? Dry
        : Job.Default
            .WithStrategy(RunStrategy.Monitoring)
            .WithLaunchCount(1)
            .WithWarmupCount(1)
            .WithIterationCount(iterations)
            .WithInvocationCount(1)
            .WithUnrollFactor(1)
            .WithId("Write");

    /// <summary>Throughput measurement with few iterations: for reads and pure CPU work.</summary>
    public static Job Read => Scale.Dry
        ? Dry
        : Job.ShortRun.WithId("Read");

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
