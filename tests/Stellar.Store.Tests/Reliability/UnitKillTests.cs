using System.Globalization;
using Stellar.Store.Tests.Storage;
using Stellar.Store.TestHost.Workload;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// kill -9 while a child process (the TestHost's <c>units</c> verb) writes units across three collections from four
/// tasks: after the reopen every task's keys, over all three collections, hold the state after its last acknowledged
/// step or after the one it had started since, so no unit is there in part and every acknowledged one is there. With
/// checkpoints taken meanwhile, each checkpoint that completed holds, for every task, the state after a step between
/// the last one acknowledged before the checkpoint's call and the one after the last acknowledged before it completed,
/// whole; the one the kill interrupted is not listed, and its name can be taken again.
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

    [Fact]
    public async Task Kill_WhileCheckpointsAreTaken_KeepsEveryCompletedCheckpointWhole()
    {
        var seeds = Stress.Seeds(first: 1_001, normal: 4, stress: 100);
        var checkpoints = 0L;
        await Parallel.ForEachAsync(seeds, new ParallelOptions { MaxDegreeOfParallelism = 2 }, async (seed, _) =>
            Interlocked.Add(ref checkpoints, await KillOnceAsync(seed, withCheckpoints: true)));
        Assert.True(checkpoints > 0, "no checkpoint completed before a kill");
    }

    private async Task<long> KillOnceAsync(int seed, bool withCheckpoints = false)
    {
        var durability = seed % 2 == 0 ? Durability.WriteThrough : Durability.Fsync;
        var encrypted = seed % 3 == 0;
        var context = string.Create(CultureInfo.InvariantCulture, $"units kill seed {seed} ({durability}, {(encrypted ? "encrypted" : "plain")}; rerun with STELLAR_SEED={seed})");
        var options = WorkloadOptions.Create(durability, Compression.Lz4, encrypted);
        var path = _dir.Sub(string.Create(CultureInfo.InvariantCulture, $"units{seed}"));
        var acknowledged = Enumerable.Repeat(-1, Tasks).ToArray();
        var started = new Dictionary<int, int[]>();
        var completed = new Dictionary<int, int[]>();
        var random = new Random(seed);
        string[] arguments = ["units", path, seed.ToString(CultureInfo.InvariantCulture), durability.ToString(), Compression.Lz4.ToString(), encrypted ? "true" : "false", .. withCheckpoints ? ["checkpoints"] : Array.Empty<string>()];
        using (var child = TestHostProcess.Start(arguments))
        {
            await child.WaitForLineAsync("ready", StartTimeout);
            var target = random.Next(20, 300);
            for (var seen = 0; seen < target;)
            {
                var line = await child.ReadLineAsync(LineTimeout) ?? throw new XunitException($"{context}: the child exited with code {child.ExitCode}: {child.Errors}");
                seen += Checkpointed(line, acknowledged, started, completed) ? 0 : Acknowledge(line, acknowledged, last: false, context);
            }

            child.Kill();
            var rest = new List<string>();
            while (await child.ReadLineAsync(LineTimeout) is { } line)
            {
                rest.Add(line);
            }

            for (var i = 0; i < rest.Count; i++)
            {
                if (!Checkpointed(rest[i], acknowledged, started, completed))
                {
                    Acknowledge(rest[i], acknowledged, last: i == rest.Count - 1, context);
                }
            }

            Assert.True(child.ExitCode is not (0 or 3 or 4 or 64), $"{context}: the child exited by itself with code {child.ExitCode}: {child.Errors}");
        }

        await using (var reopened = await StellarStore.OpenAsync(path, options))
        {
            var actual = ReadAll(reopened);

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

            if (withCheckpoints)
            {
                var listed = reopened.Checkpoints().Select(c => c.Name).ToHashSet();
                foreach (var (n, before) in completed)
                {
                    var name = string.Create(CultureInfo.InvariantCulture, $"k{n}");
                    Assert.True(listed.Contains(name), $"{context}: checkpoint {name} completed but is not listed");
                    await CheckCheckpointAsync(Path.Combine(reopened.CheckpointsPath, name), options, seed, started[n], before, $"{context}, checkpoint {name}");
                }

                // The checkpoint the kill interrupted left at most a partial directory, which its name takes over.
                var next = string.Create(CultureInfo.InvariantCulture, $"k{started.Count - 1}");
                reopened.DeleteCheckpoint(next);
                await reopened.CheckpointAsync(next);
            }
        }

        Directory.Delete(path, recursive: true);
        return withCheckpoints ? completed.Count : acknowledged.Sum(a => a + 1L);
    }

    /// <summary>
    /// Checks that every task's keys in the checkpoint hold the state after one of its steps from
    /// <paramref name="atStart"/> (acknowledged before the call) to the one after <paramref name="atEnd"/>.
    /// </summary>
    private static async Task CheckCheckpointAsync(string checkpoint, StoreOptions options, int seed, int[] atStart, int[] atEnd, string context)
    {
        await using var opened = await StellarStore.OpenReadOnlyAsync(checkpoint, options);
        var actual = ReadAll(opened);

        for (var task = 0; task < Tasks; task++)
        {
            var stream = new UnitStream(seed, task);
            var state = new Dictionary<(int, int), WorkloadItem>();
            var mine = actual.Where(e => e.Value.Task == task).ToDictionary(e => e.Key, e => e.Value);
            var found = atStart[task] < 0 && Same(mine, state);
            for (var step = 0; !found && step <= atEnd[task] + 1; step++)
            {
                UnitStream.Apply(state, stream.Next());
                found = step >= atStart[task] && Same(mine, state);
            }

            Assert.True(found, $"{context}: task {task} holds no whole state between its steps {atStart[task]} and {atEnd[task] + 1}");
        }
    }

    /// <summary>Every item of the three collections, by (collection, key).</summary>
    private static Dictionary<(int, int), WorkloadItem> ReadAll(StellarStore store)
    {
        var all = new Dictionary<(int, int), WorkloadItem>();
        for (var c = 0; c < UnitStream.Collections.Length; c++)
        {
            foreach (var item in store.GetCollection<int, WorkloadItem>(UnitStream.Collections[c], i => i.Id).Query())
            {
                all[(c, item.Id)] = item;
            }
        }

        return all;
    }

    /// <summary>Reads a checkpoint line of the child's: the acknowledgements seen when its call started or completed.</summary>
    private static bool Checkpointed(string line, int[] acknowledged, Dictionary<int, int[]> started, Dictionary<int, int[]> completed)
    {
        switch (line.Split(' '))
        {
            case ["checkpoint-start", var n]:
                started[int.Parse(n, CultureInfo.InvariantCulture)] = acknowledged.ToArray();
                return true;
            case ["checkpoint", var n, "."]:
                completed[int.Parse(n, CultureInfo.InvariantCulture)] = acknowledged.ToArray();
                return true;
            default:
                return false;
        }
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
