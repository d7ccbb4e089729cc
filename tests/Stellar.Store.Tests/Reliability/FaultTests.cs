using Xunit.Abstractions;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Storage faults through the whole API (see <see cref="FaultScenario"/>): failed and torn appends, failed fsyncs, a
/// full disk, a failed manifest replace at a shard roll, any operation failing, and power loss, at seeded random
/// points, in every durability mode with compression and encryption on and off.
/// </summary>
public sealed class FaultTests
{
    private readonly ITestOutputHelper _output;

    public FaultTests(ITestOutputHelper output) => _output = output;

    [Fact]
    public async Task Writes_WhenStorageFailsAtARandomPoint_FailTheirTasksAndReopenKeepsEveryPromisedWrite()
    {
        // 70 runs by default (ten of each fault kind), 1,400 with STELLAR_STRESS=1.
        var seeds = Stress.Seeds(first: 1, normal: 70, stress: 1400);
        long acknowledged = 0, before = 0, after = 0, beyond = 0, tornTails = 0;
        await Parallel.ForEachAsync(seeds, new ParallelOptions { MaxDegreeOfParallelism = 2 }, async (seed, _) =>
        {
            var outcome = await FaultScenario.RunAsync(seed);
            Interlocked.Add(ref acknowledged, outcome.AcknowledgedSteps);
            Interlocked.Add(ref before, outcome.FaultsBeforeEffect);
            Interlocked.Add(ref after, outcome.FaultsAfterEffect);
            Interlocked.Add(ref beyond, outcome.StepsFoundBeyondPromise);
            Interlocked.Add(ref tornTails, outcome.TruncatedBytes > 0 ? 1 : 0);
        });
        var faults = before + after;
        _output.WriteLine($"{seeds.Count} runs, {faults} faults injected by knob ({before} before the effect, {after} after it), {acknowledged} acknowledged steps checked, " +
            $"{beyond} unpromised steps found kept, {tornTails} torn tails cut");

        // FaultScenario checks each run against its model and throws on any broken promise; these guard against a
        // suite that passes because it tested nothing.
        Assert.True(faults >= seeds.Count / 2, $"only {faults} faults were injected in {seeds.Count} runs");
        Assert.True(acknowledged > 0, "no write was acknowledged before its fault");
        Assert.True(before > 0 && after > 0, $"the faults did not cover both timings ({before} before, {after} after the effect)");
    }
}
