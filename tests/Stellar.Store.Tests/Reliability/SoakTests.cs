using Xunit.Abstractions;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Model-based soak (see <see cref="SoakRun"/>): every operation of the API in a seeded random mix, with reopens,
/// crashes, storage faults before and after their effect, snapshots and concurrent readers, checked against an
/// in-memory model after every step.
/// </summary>
public sealed class SoakTests : IDisposable
{
    private readonly TempDirectory _dir = new();
    private readonly ITestOutputHelper _output;

    public SoakTests(ITestOutputHelper output) => _output = output;

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(SoakStorage.Files)]
    [InlineData(SoakStorage.Memory)]
    public async Task Soak_RandomOperations_MatchTheModelAfterEveryStep(SoakStorage storage)
    {
        // 3 seeds of 250 steps by default; 8 seeds of 1,500 with STELLAR_STRESS=1 (about 10 minutes each).
        var steps = Stress.Pick(250, 1_500);
        var totals = new Dictionary<string, int>(StringComparer.Ordinal);
        int before = 0, after = 0, kept = 0;
        var seeds = Stress.Seeds(first: (int)storage * 1000, normal: 3, stress: 8);
        foreach (var seed in seeds)
        {
            var run = new SoakRun(seed, storage, _dir.Sub($"soak{seed}"));
            foreach (var (name, count) in await run.RunAsync(steps))
            {
                totals[name] = totals.GetValueOrDefault(name) + count;
            }

            var figures = run.FaultFigures;
            (before, after, kept) = (before + figures.BeforeEffect, after + figures.AfterEffect, kept + figures.KeptBeyondPromise);
        }

        _output.WriteLine($"{seeds.Count} seeds x {steps} steps: " + string.Join(", ", totals.OrderBy(t => t.Key, StringComparer.Ordinal).Select(t => $"{t.Value} {t.Key}")));
        _output.WriteLine($"storage faults injected: {before} before their effect, {after} after it; {kept} unpromised writes found kept after a fault");

        // SoakRun checks the model after every step and throws on a difference; this guards against a soak that
        // passes because it ran nothing, or left an operation out.
        Assert.Equal(seeds.Count * steps, totals.Values.Sum());
        Assert.All(new[] { "insert", "upsert", "delete", "batch", "compact", "reopen", "fault" }, name => Assert.True(totals.GetValueOrDefault(name) > 0, $"the soak never ran '{name}'"));
        Assert.True(before > 0 && after > 0, $"the soak's faults did not cover both timings ({before} before, {after} after the effect)");
    }
}
