using System.Globalization;
using Stellar.Store.Tests.Storage;
using Stellar.Store.TestHost.Workload;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// kill -9 against a model: a child process (the TestHost's <c>write</c> verb) writes a seeded mix of inserts,
/// updates, upserts, deletes and atomic batches from several tasks and prints each acknowledged step; the test kills
/// it with SIGKILL at a random moment, reopens the store and checks it against the streams: every acknowledged step
/// is there, no batch is partly there, nothing never attempted is there. While the child runs, a second open must
/// fail with <see cref="StoreLockedException"/>; once it is killed, the store must open and take writes.
/// </summary>
public sealed class KillTests : IDisposable
{
    // The TestHost's WriteVerb.Tasks and WriteVerb.KeysPerTask: the TestHost is run, never loaded.
    private const int Tasks = 4;
    private const int KeysPerTask = 50;

    // Generous: children are fresh .NET processes on a machine that may be busy building or testing.
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(90);
    private static readonly TimeSpan LineTimeout = TimeSpan.FromSeconds(60);

    /// <summary>The modes that promise something to a killed process, with compression and encryption on and off.</summary>
    private static readonly (Durability Durability, Compression Compression, bool Encrypted)[] Modes =
    [
        .. from durability in new[] { Durability.WriteThrough, Durability.Fsync }
           from compression in new[] { Compression.None, Compression.Lz4 }
           from encrypted in new[] { false, true }
           select (durability, compression, encrypted),
    ];

    private readonly TempDirectory _dir = new();
    private readonly ITestOutputHelper _output;

    public KillTests(ITestOutputHelper output) => _output = output;

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Kill_AtARandomMoment_KeepsEveryAcknowledgedWriteAndNoPartialBatch()
    {
        // 50 kills by default (1,000 with STELLAR_STRESS=1), spread over the modes by seed; two children at a time.
        var seeds = Stress.Seeds(first: 1, normal: 50, stress: 1000);
        var totals = new Totals();
        await Parallel.ForEachAsync(seeds, new ParallelOptions { MaxDegreeOfParallelism = 2 }, async (seed, _) => await KillOnceAsync(seed, totals));
        _output.WriteLine($"{totals.Iterations} kills, {totals.AcknowledgedSteps} acknowledged steps checked, " +
            $"{totals.PendingFound} started-but-unacknowledged steps found applied, {totals.TornTails} torn tails cut, {totals.EarlyKills} kills before the store was open, " +
            $"{totals.KillsInCompaction} kills inside a compaction, {totals.LargeValues} values over {WorkloadStream.LargePayloadMin} characters recovered");
        Assert.Equal(seeds.Count, totals.Iterations);
        if (Stress.Seed is null)
        {
            Assert.True(totals.LargeValues > 0, "no large value (over LargeValueThreshold) met a kill");
        }

        if (Stress.Enabled && Stress.Seed is null)
        {
            Assert.True(totals.KillsInCompaction > 0, "no kill landed inside a compaction");
        }
    }

    [Fact]
    public async Task OpenAsync_WhileAnotherProcessWritesAndAfterItIsKilled_IsLockedThenRecovers()
    {
        var totals = new Totals();
        await KillOnceAsync(seed: 0, totals, allowEarlyKill: false);
        Assert.Equal(1, totals.LockChecks);
    }

    private async Task KillOnceAsync(int seed, Totals totals, bool allowEarlyKill = true)
    {
        var (durability, compression, encrypted) = Modes[seed % Modes.Length];
        var context = string.Create(CultureInfo.InvariantCulture,
            $"kill seed {seed} ({durability}, {compression}, {(encrypted ? "encrypted" : "plain")}; rerun with STELLAR_SEED={seed})");
        var options = WorkloadOptions.Create(durability, compression, encrypted);
        var random = new Random(seed);
        var path = _dir.Sub(string.Create(CultureInfo.InvariantCulture, $"kill{seed}"));
        var acknowledged = Enumerable.Repeat(-1, Tasks).ToArray();
        try
        {
            using (var child = TestHostProcess.Start("write", path, seed.ToString(CultureInfo.InvariantCulture), durability.ToString(), compression.ToString(), encrypted ? "true" : "false"))
            {
                var ackCount = 0;
                if (allowEarlyKill && random.Next(10) == 0)
                {
                    // Now and then the kill lands while the child starts, opens or creates the store.
                    await Task.Delay(random.Next(0, 500));
                    Interlocked.Increment(ref totals.EarlyKills);
                }
                else
                {
                    await child.WaitForLineAsync("ready", StartTimeout);
                    var locked = await Assert.ThrowsAsync<StoreLockedException>(() => StellarStore.OpenAsync(path, options));
                    Assert.Equal(Path.GetFullPath(path), locked.Path);
                    Interlocked.Increment(ref totals.LockChecks);

                    var target = random.Next(0, 400);
                    while (ackCount < target)
                    {
                        var line = await child.ReadLineAsync(LineTimeout)
                            ?? throw new XunitException($"the child exited by itself with code {child.ExitCode}: {child.Errors}");
                        ackCount += Acknowledge(line, acknowledged, last: false);
                    }

                    if (random.Next(2) == 0)
                    {
                        // Let the child run on unobserved for a moment, so the kill does not always follow a read.
                        await Task.Delay(random.Next(1, 30));
                    }
                }

                child.Kill();

                // Acknowledgements still in the pipe were made before the kill: they count as well.
                string? rest;
                var lines = new List<string>();
                while ((rest = await child.ReadLineAsync(LineTimeout)) is not null)
                {
                    lines.Add(rest);
                }

                for (var i = 0; i < lines.Count; i++)
                {
                    Acknowledge(lines[i], acknowledged, last: i == lines.Count - 1);
                }

                // 3 StoreLocked, 4 WorkloadFailed, 64 Usage: the child stopped by itself, it was not killed.
                Assert.True(child.ExitCode is not (0 or 3 or 4 or 64), $"the child exited by itself with code {child.ExitCode}: {child.Errors}");
            }

            // A compaction's output file, still being written when the child died: the kill landed inside a
            // compaction's copy (a kill between its rename and swap is not counted; the open cannot tell its
            // leftover from a new shard's).
            if (Directory.Exists(path) && Directory.GetFiles(path, "*.compacting").Length > 0)
            {
                Interlocked.Increment(ref totals.KillsInCompaction);
            }

            await using (var reopened = await StellarStore.OpenAsync(path, options))
            {

                var items = reopened.GetCollection<int, WorkloadItem>(WorkloadStream.CollectionName, i => i.Id);
                var actual = items.Query().ToDictionary(i => i.Id);
                Assert.Equal(actual.Count, items.Count);
                foreach (var (key, value) in actual)
                {
                    Assert.Equal(value, items.Get(key));
                }

                var pendingFound = WorkloadCheck.Verify(actual, seed, KeysPerTask, acknowledged, context);
                Interlocked.Add(ref totals.LargeValues, actual.Values.Count(v => v.Payload.Length >= WorkloadStream.LargePayloadMin));
                Interlocked.Add(ref totals.PendingFound, pendingFound);
                Interlocked.Add(ref totals.AcknowledgedSteps, acknowledged.Sum(a => a + 1));
                if (reopened.Recovery.TruncatedBytes > 0)
                {
                    Interlocked.Increment(ref totals.TornTails);
                }

                // The recovered store takes writes, and they survive the next open.
                await items.UpsertAsync(new WorkloadItem(-1, -1, -1, "after the kill"));
            }

            await using (var again = await StellarStore.OpenAsync(path, options))
            {
                var items = again.GetCollection<int, WorkloadItem>(WorkloadStream.CollectionName, i => i.Id);
                Assert.Equal("after the kill", items.Get(-1)?.Payload);
                Assert.Equal(0L, again.Recovery.TruncatedBytes);
                WorkloadCheck.Verify(items.Query().Where(i => i.Id >= 0).ToDictionary(i => i.Id), seed, KeysPerTask, acknowledged, context + " (second open)");
            }

            Interlocked.Increment(ref totals.Iterations);
            Directory.Delete(path, recursive: true);
        }
        catch (Exception e) when (e is not XunitException)
        {
            throw new XunitException($"{context}: {e}");
        }
    }

    /// <summary>Records an <c>ack task step .</c> line; returns 1 for an acknowledgement, 0 for anything else.</summary>
    private static int Acknowledge(string line, int[] acknowledged, bool last)
    {
        var parts = line.Split(' ');
        if (parts is not ["ack", var taskText, var stepText, "."])
        {
            // Only the very last line may be cut short by the kill; "ready" may be read here after an early kill.
            Assert.True(line == "ready" || last, $"unexpected line from the child: '{line}'");
            return 0;
        }

        var task = int.Parse(taskText, CultureInfo.InvariantCulture);
        var step = int.Parse(stepText, CultureInfo.InvariantCulture);
        Assert.True(step == acknowledged[task] + 1, $"task {task} acknowledged step {step} after step {acknowledged[task]}");
        acknowledged[task] = step;
        return 1;
    }

    private sealed class Totals
    {
        public int Iterations;
        public int LockChecks;
        public int EarlyKills;
        public int TornTails;
        public long AcknowledgedSteps;
        public int PendingFound;
        public int KillsInCompaction;
        public int LargeValues;
    }
}
