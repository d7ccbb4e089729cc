using System.Globalization;
using Stellar.Store.Tests.Storage;
using Stellar.Store.TestHost.Workload;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// kill -9 while a child process (the TestHost's <c>units</c> verb) writes units across three collections from four
/// tasks: after the reopen every task's keys, over all three collections, hold the state after its last acknowledged
/// step or after the one it had started since, so no unit is there in part and every acknowledged one is there.
/// </summary>
public sealed class UnitKillTests : IDisposable
{
    private const int Tasks = 4;
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(90);
    private static readonly TimeSpan LineTimeout = TimeSpan.FromSeconds(60);
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Kill_WhileUnitsAcrossCollectionsRun_KeepsEveryAcknowledgedUnitAndNoPartialOne()
    {
        var seeds = Stress.Seeds(first: 1, normal: 8, stress: 200);
        var units = 0L;
        await Parallel.ForEachAsync(seeds, new ParallelOptions { MaxDegreeOfParallelism = 2 }, async (seed, _) =>
            Interlocked.Add(ref units, await KillOnceAsync(seed)));
        Assert.True(units > 0, "no unit was acknowledged before a kill");
    }

    private async Task<long> KillOnceAsync(int seed)
    {
        var durability = seed % 2 == 0 ? Durability.WriteThrough : Durability.Fsync;
        var encrypted = seed % 3 == 0;
        var context = string.Create(CultureInfo.InvariantCulture, $"units kill seed {seed} ({durability}, {(encrypted ? "encrypted" : "plain")}; rerun with STELLAR_SEED={seed})");
        var options = WorkloadOptions.Create(durability, Compression.Lz4, encrypted);
        var path = _dir.Sub(string.Create(CultureInfo.InvariantCulture, $"units{seed}"));
        var acknowledged = Enumerable.Repeat(-1, Tasks).ToArray();
        var random = new Random(seed);
        using (var child = TestHostProcess.Start("units", path, seed.ToString(CultureInfo.InvariantCulture), durability.ToString(), Compression.Lz4.ToString(), encrypted ? "true" : "false"))
        {
            await child.WaitForLineAsync("ready", StartTimeout);
            var target = random.Next(20, 300);
            for (var seen = 0; seen < target;)
            {
                var line = await child.ReadLineAsync(LineTimeout) ?? throw new XunitException($"{context}: the child exited with code {child.ExitCode}: {child.Errors}");
                seen += Acknowledge(line, acknowledged, last: false, context);
            }

            child.Kill();
            var rest = new List<string>();
            while (await child.ReadLineAsync(LineTimeout) is { } line)
            {
                rest.Add(line);
            }

            for (var i = 0; i < rest.Count; i++)
            {
                Acknowledge(rest[i], acknowledged, last: i == rest.Count - 1, context);
            }

            Assert.True(child.ExitCode is not (0 or 3 or 4 or 64), $"{context}: the child exited by itself with code {child.ExitCode}: {child.Errors}");
        }

        await using (var reopened = await StellarStore.OpenAsync(path, options))
        {
            var actual = new Dictionary<(int, int), WorkloadItem>();
            for (var c = 0; c < UnitStream.Collections.Length; c++)
            {
                foreach (var item in reopened.GetCollection<int, WorkloadItem>(UnitStream.Collections[c], i => i.Id).Query())
                {
                    actual[(c, item.Id)] = item;
                }
            }

            for (var task = 0; task < Tasks; task++)
            {
                // The task's keys hold the state after its last acknowledged step, or after the next one, whole.
                var stream = new UnitStream(seed, task);
                var state = new Dictionary<(int, int), WorkloadItem>();
                for (var step = 0; step <= acknowledged[task]; step++)
                {
                    UnitStream.Apply(state, stream.Next());
                }

                var mine = actual.Where(e => e.Value.Task == task).ToDictionary(e => e.Key, e => e.Value);
                var found = Same(mine, state);
                if (!found)
                {
                    UnitStream.Apply(state, stream.Next());
                    found = Same(mine, state);
                }

                Assert.True(found, $"{context}: task {task} holds neither the state after step {acknowledged[task]} nor after the next one");
            }

            Assert.All(actual.Values, v => Assert.InRange(v.Task, 0, Tasks - 1));
        }

        Directory.Delete(path, recursive: true);
        return acknowledged.Sum(a => a + 1L);
    }

    private static bool Same(Dictionary<(int, int), WorkloadItem> actual, Dictionary<(int, int), WorkloadItem> expected) =>
        actual.Count == expected.Count && expected.All(e => actual.TryGetValue(e.Key, out var v) && v == e.Value);

    private static int Acknowledge(string line, int[] acknowledged, bool last, string context)
    {
        if (line.Split(' ') is not ["ack", var taskText, var stepText, "."])
        {
            Assert.True(line == "ready" || last, $"{context}: unexpected line from the child: '{line}'");
            return 0;
        }

        var task = int.Parse(taskText, CultureInfo.InvariantCulture);
        var step = int.Parse(stepText, CultureInfo.InvariantCulture);
        Assert.True(step == acknowledged[task] + 1, $"{context}: task {task} acknowledged step {step} after step {acknowledged[task]}");
        acknowledged[task] = step;
        return 1;
    }
}
