using System.Globalization;
using Stellar.Store.Storage;
using Stellar.Store.TestHost.Workload;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>What goes wrong in a <see cref="FaultScenario"/>.</summary>
internal enum FaultKind
{
    /// <summary>An append fails and writes nothing.</summary>
    FailedAppend,

    /// <summary>An append fails after writing a random prefix of its block.</summary>
    TornAppend,

    /// <summary>An fsync fails (in Fsync mode at a group's end, in Buffered mode in <c>FlushAsync</c>).</summary>
    FailedFsync,

    /// <summary>The disk fills up: the append that crosses it writes what fits, and every later write fails.</summary>
    FullDisk,

    /// <summary>A manifest replace fails: at a shard roll, since the shards are small.</summary>
    FailedManifestReplace,

    /// <summary>Any mutating storage operation fails (an append tears at a random length).</summary>
    AnyOperation,

    /// <summary>No fault: the machine loses power (or, in WriteThrough mode, the process dies) while writes run.</summary>
    PowerLoss,
}

/// <summary>
/// One seeded run of the <see cref="WorkloadStream"/> workload through the whole API over
/// <c>FaultInjectingStorage(MemoryStorage)</c>: four tasks write; after a random number of acknowledged steps a
/// fault is armed at a random point ahead; each task stops at its first failure. Then: every failure is a
/// <see cref="StoreFaultedException"/>, the store shows exactly the acknowledged steps and refuses new writes; the
/// process or the machine crashes (a machine crash loses unsynced bytes but keeps a random prefix of them); the
/// store reopens, in every mode and after either crash, and holds, per task, the state after one of its steps from
/// the last the mode promised to the last attempted; and it takes writes again. Promised: every acknowledged step
/// in Fsync mode, and in WriteThrough mode after a process crash; otherwise every step acknowledged before the last
/// completed <c>FlushAsync</c>, which a flusher task calls now and then in those modes.
/// </summary>
internal static class FaultScenario
{
    private const int Tasks = 4;
    private const int KeysPerTask = 50;
    private const int MaxStepsPerTask = 20_000;

    /// <summary>A bound on waits, so that a hang fails the test instead of stalling the run.</summary>
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(2);

    /// <summary>The figures of one run.</summary>
    public sealed record Outcome(int AcknowledgedSteps, int FaultsBeforeEffect, int FaultsAfterEffect, int StepsFoundBeyondPromise, long TruncatedBytes);

    /// <summary>Runs the scenario of <paramref name="seed"/>: the fault kind, mode, compression and encryption all follow from it.</summary>
    public static async Task<Outcome> RunAsync(int seed)
    {
        var random = new Random(seed);
        var kind = (FaultKind)(seed % Enum.GetValues<FaultKind>().Length);
        var durability = kind == FaultKind.FailedFsync
            ? (random.Next(2) == 0 ? Durability.Fsync : Durability.Buffered)
            : (Durability)random.Next(3);
        var compression = random.Next(2) == 0 ? Compression.None : Compression.Lz4;
        var encrypted = random.Next(2) == 0;
        var machineCrash = durability == Durability.Fsync ? random.Next(4) > 0 : random.Next(2) == 0;

        // Every other round of the kinds fails its operation after the effect (the bytes landed, the rename
        // happened, then the call reported an error), so each kind meets both timings.
        var timing = (seed / Enum.GetValues<FaultKind>().Length) % 2 == 0 ? FaultTiming.BeforeEffect : FaultTiming.AfterEffect;
        var context = string.Create(CultureInfo.InvariantCulture,
            $"fault seed {seed} ({kind} {timing}, {durability}, {compression}, {(encrypted ? "encrypted" : "plain")}, {(machineCrash ? "machine" : "process")} crash; rerun with STELLAR_SEED={seed})");
        try
        {
            // No background compaction: an injected fault fires once, and a compaction that met it would fail
            // alone (as it should, see CompactionTests) and leave the writers without a fault to meet.
            return await RunAsync(seed, random, kind, timing, machineCrash, WorkloadOptions.Create(durability, compression, encrypted, autoCompaction: false), context);
        }
        catch (Exception e) when (e is not XunitException)
        {
            throw new XunitException($"{context}: {e}");
        }
    }

    private static async Task<Outcome> RunAsync(int seed, Random random, FaultKind kind, FaultTiming timing, bool machineCrash, StoreOptions options, string context)
    {
        var memory = new MemoryStorage();
        using var fence = new CrashFence(memory);
        var faults = new FaultInjectingStorage(fence) { Timing = timing };
        var flusherMet = false;
        var flushed = Enumerable.Repeat(-1, Tasks).ToArray();
        var armAfter = random.Next(0, 300);
        var armed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        var store = await StellarStore.OpenAsync(faults, options);
        var items = store.GetCollection<int, WorkloadItem>(WorkloadStream.CollectionName, i => i.Id);
        var runner = new WorkloadRunner(seed, Tasks, KeysPerTask, items);

        // Where only FlushAsync promises anything, a flusher records what each completed flush covered.
        using var stopFlushing = new CancellationTokenSource();
        async Task FlushAsync(Random pause)
        {
            while (!stopFlushing.IsCancellationRequested)
            {
                var covered = runner.Acknowledged;
                try
                {
                    await store.FlushAsync();
                }
                catch (StoreFaultedException)
                {
                    // The armed fault may land in this flush after every writer is done: it is met all the same.
                    flusherMet = true;
                    return;
                }

                covered.CopyTo(flushed, 0);
                await Task.Delay(pause.Next(0, 3));
            }
        }

        var writers = runner.RunAsync(MaxStepsPerTask, () =>
        {
            if (runner.AcknowledgedCount >= armAfter)
            {
                armed.TrySetResult();
            }
        });
        var flusher = options.Durability != Durability.Fsync ? Task.Run(() => FlushAsync(new Random(seed + 1))) : Task.CompletedTask;
        if (armAfter > 0)
        {
            await Task.WhenAny(armed.Task, writers).WaitAsync(HangTimeout);
        }

        Arm(kind, machineCrash, faults, fence, memory, random);
        await writers.WaitAsync(HangTimeout);
        await stopFlushing.CancelAsync();
        await flusher.WaitAsync(HangTimeout);

        // The write that met the fault failed, and every failure says the outcome is uncertain: none is silent. (A
        // task may finish all its steps first: in Buffered mode only flushes write, and a busy machine can starve
        // the flusher.)
        var acknowledged = runner.Acknowledged;
        var attempted = runner.Attempted;
        for (var task = 0; task < Tasks; task++)
        {
            if (runner.Failures[task] is { } failure and not StoreFaultedException)
            {
                throw new XunitException($"{context}: task {task} failed at step {attempted[task]} with {failure}");
            }
        }

        // An injected fault must fail a write. If the tasks finished before the armed fault could land, the run
        // still crashes and checks recovery below (FaultTests asserts that most runs do inject their fault).
        var met = runner.Failures.Any(f => f is not null) || Volatile.Read(ref flusherMet);
        Assert.True(met || faults.FaultCount == 0, $"{context}: {faults.FaultCount} faults were injected, yet every task ran {MaxStepsPerTask} steps without a failure");

        if (kind == FaultKind.PowerLoss)
        {
            // The machine already crashed while the writes ran (see Arm).
            await Crash.AbandonAsync(store);
        }
        else
        {
            if (met)
            {
                Assert.True(faults.FaultCount > 0, $"{context}: no fault was injected");

                // The faulted store shows exactly the acknowledged steps, and refuses writes until it is reopened.
                WorkloadCheck.Verify(items.Query().ToDictionary(i => i.Id), seed, KeysPerTask, acknowledged, acknowledged, context + " (before the crash)");
                await Assert.ThrowsAsync<StoreFaultedException>(() => items.UpsertAsync(new WorkloadItem(-1, -1, -1, "refused")));
                await Assert.ThrowsAsync<StoreFaultedException>(() => store.FlushAsync());
            }

            await Crash.AndAbandonAsync(fence, memory, store, losesUnsyncedData: machineCrash, tornTail: random);
        }

        var promisedAll = options.Durability == Durability.Fsync || (options.Durability == Durability.WriteThrough && !machineCrash);
        var guaranteed = promisedAll ? acknowledged : flushed;
        Dictionary<int, WorkloadItem> recovered;
        int beyond;
        long truncated;
        await using (var reopened = await StellarStore.OpenAsync(memory, options).WaitAsync(HangTimeout))
        {
            var again = reopened.GetCollection<int, WorkloadItem>(WorkloadStream.CollectionName, i => i.Id);
            recovered = again.Query().ToDictionary(i => i.Id);
            beyond = WorkloadCheck.Verify(recovered, seed, KeysPerTask, guaranteed, attempted, context);
            truncated = reopened.Recovery.TruncatedBytes;
            await again.UpsertAsync(new WorkloadItem(-1, -1, -1, "after the crash"));
        }

        await using (var reopened = await StellarStore.OpenAsync(memory, options).WaitAsync(HangTimeout))
        {
            var again = reopened.GetCollection<int, WorkloadItem>(WorkloadStream.CollectionName, i => i.Id);
            Assert.Equal("after the crash", again.Get(-1)?.Payload);
            Assert.Equal(recovered.Count + 1, again.Count);
            Assert.All(recovered, entry => Assert.Equal(entry.Value, again.Get(entry.Key)));
        }

        return new Outcome(acknowledged.Sum(a => a + 1), faults.FaultsBeforeEffect, faults.FaultsAfterEffect, beyond, truncated);
    }

    /// <summary>Sets the fault a little ahead of where the store is now, so it lands among the running writes.</summary>
    private static void Arm(FaultKind kind, bool machineCrash, FaultInjectingStorage faults, CrashFence fence, MemoryStorage memory, Random random)
    {
        switch (kind)
        {
            case FaultKind.FailedAppend:
                faults.FailAppendAt = faults.AppendCount + random.Next(1, 30);
                break;
            case FaultKind.TornAppend:
                faults.TornAppendLength = random.Next(1, 2_000);
                faults.FailAppendAt = faults.AppendCount + random.Next(1, 30);
                break;
            case FaultKind.FailedFsync:
                faults.FailFlushAt = faults.FlushCount + random.Next(1, 30);
                break;
            case FaultKind.FullDisk:
                faults.DiskCapacity = faults.BytesWritten + random.Next(0, 128 * 1024);
                break;
            case FaultKind.FailedManifestReplace:
                faults.FailReplaceAt = faults.ReplaceCount + random.Next(1, 3);
                break;
            case FaultKind.AnyOperation:
                faults.TornAppendLength = random.Next(0, 2_000);
                faults.FailOperationAt = faults.OperationCount + random.Next(1, 100);
                break;
            default:
                // While the writes run: nothing the dead process does from here on reaches the disk.
                fence.Crash(() => memory.SimulateCrash(losesUnsyncedData: machineCrash, tornTail: random));
                break;
        }
    }
}
