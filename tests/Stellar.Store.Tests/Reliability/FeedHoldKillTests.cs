using System.Globalization;
using Stellar.Store.Tests.Storage;
using Stellar.Store.TestHost.Workload;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// kill -9 while a cursor holds compaction: a child process (the TestHost's <c>feed-hold</c> verb) writes one item per
/// step, lets a lagging cursor acknowledge now and then, and compacts every 90 steps; the test kills it at a random
/// moment, reopens the store and checks it against the steps: every acknowledged step is there, and the cursor, still
/// holding, reads every step after its position once, in order, to the last one on disk, without a gap that a
/// compaction could have left.
/// </summary>
public sealed class FeedHoldKillTests : IDisposable
{
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(90);
    private static readonly TimeSpan LineTimeout = TimeSpan.FromSeconds(60);

    private readonly TempDirectory _dir = new();
    private readonly ITestOutputHelper _output;

    public FeedHoldKillTests(ITestOutputHelper output) => _output = output;

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Kill_WhileACursorHoldsCompaction_LosesNoAcknowledgedWriteAndNoChangeTheCursorHasNotAcknowledged()
    {
        // 6 kills by default (200 with STELLAR_STRESS=1); two children at a time.
        var seeds = Stress.Seeds(first: 1, normal: 6, stress: 200);
        var compactedKills = 0;
        var killsInCompaction = 0;
        await Parallel.ForEachAsync(seeds, new ParallelOptions { MaxDegreeOfParallelism = 2 }, async (seed, _) =>
        {
            var (compacted, inCompaction) = await KillOnceAsync(seed);
            Interlocked.Add(ref compactedKills, compacted ? 1 : 0);
            Interlocked.Add(ref killsInCompaction, inCompaction ? 1 : 0);
        });
        _output.WriteLine($"{seeds.Count} kills, {compactedKills} after a compaction replaced history, {killsInCompaction} inside a compaction's copy");
        if (Stress.Seed is null)
        {
            Assert.True(compactedKills > 0, "no kill came after a compaction that replaced history");
        }
    }

    /// <summary>One child, killed at a random step: returns whether a compaction had replaced history by then, and whether the kill landed in a copy.</summary>
    private async Task<(bool Compacted, bool InCompaction)> KillOnceAsync(int seed)
    {
        var context = string.Create(CultureInfo.InvariantCulture, $"feed hold kill seed {seed} (rerun with STELLAR_SEED={seed})");
        var random = new Random(seed);
        var path = _dir.Sub(string.Create(CultureInfo.InvariantCulture, $"hold{seed}"));
        var lastStep = -1;
        var lastCursor = -1;
        try
        {
            using (var child = TestHostProcess.Start("feed-hold", path))
            {
                await child.WaitForLineAsync("ready", StartTimeout);
                var target = random.Next(300, 1500);
                while (lastStep < target)
                {
                    var line = await child.ReadLineAsync(LineTimeout)
                        ?? throw new XunitException($"the child exited by itself with code {child.ExitCode}: {child.Errors}");
                    Record(line, ref lastStep, ref lastCursor, last: false);
                }

                child.Kill();
                var lines = new List<string>();
                while (await child.ReadLineAsync(LineTimeout) is { } rest)
                {
                    lines.Add(rest);
                }

                for (var i = 0; i < lines.Count; i++)
                {
                    Record(lines[i], ref lastStep, ref lastCursor, last: i == lines.Count - 1);
                }

                Assert.True(child.ExitCode is not (0 or 3 or 4 or 64), $"the child exited by itself with code {child.ExitCode}: {child.Errors}");
            }

            var inCompaction = Directory.GetFiles(path, "*.compacting").Length > 0;
            await using var reopened = await StellarStore.OpenAsync(path, HeldFeed.Options());
            var items = reopened.GetCollection<int, WorkloadItem>(HeldFeed.CollectionName, i => i.Id);

            // Every acknowledged step is there; the last step on disk tells what each key holds.
            var onDisk = items.Query().Max(i => i.Step);
            Assert.True(onDisk >= lastStep, $"{context}: step {lastStep} was acknowledged, the store ends at step {onDisk}");
            for (var key = 0; key < HeldFeed.Keys && key <= onDisk; key++)
            {
                var expected = onDisk - ((onDisk - key) % HeldFeed.Keys);
                Assert.Equal(HeldFeed.Item(expected), items.Get(key));
            }

            var cursor = items.Feed(HeldFeed.Cursor);
            Assert.Equal(HeldFeed.MaxHeldBytes, cursor.MaxHeldBytes);
            var compacted = items.Engine.Feed.Oldest != ChangePosition.Start;

            // The cursor stands after the last acknowledgement the child printed, or after one still in flight; from
            // there it reads every later step once, in order, to the end.
            var steps = new List<int>();
            using var guard = new CancellationTokenSource(TimeSpan.FromMinutes(2));
            await foreach (var change in cursor.Changes(guard.Token))
            {
                Assert.Equal(ChangeKind.Put, change.Kind);
                steps.Add(change.Value!.Step);
                if (change.Value.Step == onDisk)
                {
                    break;
                }
            }

            // The child acknowledges steps 9, 49, 89, ...: the cursor stands after the last one printed or the next.
            var first = steps[0];
            var next = lastCursor < 0 ? 9 : lastCursor + 40;
            Assert.True(first == lastCursor + 1 || first == next + 1, $"{context}: the cursor acknowledged step {lastCursor}, but delivers step {first} first");
            Assert.Equal(Enumerable.Range(first, onDisk - first + 1), steps);

            return (compacted, inCompaction);
        }
        catch (Exception e) when (e is not XunitException)
        {
            throw new XunitException($"{context}: {e}");
        }
    }

    /// <summary>Records an <c>ack step .</c> or <c>cursor step .</c> line; only the very last line may be cut short by the kill.</summary>
    private static void Record(string line, ref int lastStep, ref int lastCursor, bool last)
    {
        switch (line.Split(' '))
        {
            case ["ack", var step, "."]:
                var acknowledged = int.Parse(step, CultureInfo.InvariantCulture);
                Assert.Equal(lastStep + 1, acknowledged);
                lastStep = acknowledged;
                break;
            case ["cursor", var step, "."]:
                lastCursor = int.Parse(step, CultureInfo.InvariantCulture);
                break;
            default:
                Assert.True(last, $"unexpected line from the child: '{line}'");
                break;
        }
    }
}
