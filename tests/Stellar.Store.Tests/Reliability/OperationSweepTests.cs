using System.Globalization;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;
using Xunit.Abstractions;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Fails each storage operation of a compaction, and of a write that rolls a shard, in turn: before its effect
/// (a clean failure) and after it (the outcome unknown to the store), then crashes the machine or the process and
/// reopens. Every acknowledged write is there, no wrong value is ever returned, and the store opens, every time.
/// Each call is failed twice: once followed by a process crash with nothing written after the failure (a machine
/// crash undoes unsynced deletes, and a later manifest write repairs a wrong in-memory manifest, either of which
/// would hide a wrong delete), and once by a write and then a machine crash.
/// </summary>
public sealed class OperationSweepTests(ITestOutputHelper output)
{
    private const int Keys = 300;

    // Long enough that the batch of every key does not fit in what is left of the active shard.
    private const int RollNameLength = 220;

    public static TheoryData<string, bool, bool> Cases()
    {
        var cases = new TheoryData<string, bool, bool>();
        foreach (var operation in new[] { "compaction", "roll" })
        {
            foreach (var afterEffect in new[] { false, true })
            {
                foreach (var encrypted in new[] { false, true })
                {
                    cases.Add(operation, afterEffect, encrypted);
                }
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Operation_WhenEachStorageCallFailsThenTheMachineCrashes_ReopensWithEveryAcknowledgedWrite(string operation, bool afterEffect, bool encrypted)
    {
        var options = new StoreOptions
        {
            Durability = Durability.Fsync,
            MaxShardBytes = 64 * 1024,
            CompactionThreshold = 0,
            Compression = Compression.Lz4,
            EncryptionKey = encrypted ? Enumerable.Range(0, 32).Select(i => (byte)i).ToArray() : null,
        };
        var timing = afterEffect ? FaultTiming.AfterEffect : FaultTiming.BeforeEffect;

        var clean = await RunAsync(operation, options, timing, failAt: null, machineCrash: false);
        Assert.Null(clean.Failure);
        Assert.True(clean.Steps >= 4, $"a {operation} took only {clean.Steps} storage operations");

        int runs = 0, faults = 0, faulted = 0;
        long checkedWrites = 0;
        for (var k = 1; k <= clean.Steps; k++)
        {
            foreach (var machineCrash in new[] { false, true })
            {
                var run = await RunAsync(operation, options, timing, failAt: k, machineCrash);
                runs++;
                faults += run.Faults;
                faulted += run.Failure is StoreFaultedException ? 1 : 0;
                checkedWrites += run.Checked;
            }
        }

        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{operation}, {timing}, {(encrypted ? "encrypted" : "plain")}: {runs} runs over {clean.Steps} storage calls, {faults} faults injected ({timing}), {faulted} faulted the collection, {checkedWrites} acknowledged writes checked"));
        Assert.Equal(runs, faults);
    }

    private static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    private static Task WriteRoundAsync(Collection<int, Player> players, int round, int nameLength) => players.WriteAsync(b =>
    {
        for (var i = 0; i < Keys; i++)
        {
            if (i != 5 || round < 4)
            {
                b.Upsert(new Player(i, Name(i, round, nameLength), round, i));
            }
        }
    });

    private static string Name(int key, int round, int length) => $"p{key}-r{round}-".PadRight(length, 'x');

    /// <summary>
    /// Prepares a store, runs the operation with the <paramref name="failAt"/>th storage call of it failing, then a
    /// write after it; crashes the machine or the process and checks the reopened store against what was acknowledged.
    /// </summary>
    private static async Task<(int Steps, Exception? Failure, int Faults, long Checked)> RunAsync(
        string operation, StoreOptions options, FaultTiming timing, int? failAt, bool machineCrash)
    {
        var memory = new MemoryStorage();
        using var fence = new CrashFence(memory);
        var faults = new FaultInjectingStorage(fence) { Timing = timing };
        var context = string.Create(CultureInfo.InvariantCulture, $"{operation}, {timing}, fault at call {failAt}, {(machineCrash ? "machine" : "process")} crash");

        // Three rounds of every key in small shards, and one key deleted (never written again): garbage for a
        // compaction to drop.
        var store = await StellarStore.OpenAsync(faults, options);
        var players = Players(store);
        for (var round = 1; round <= 3; round++)
        {
            await WriteRoundAsync(players, round, 40);
        }

        await players.DeleteAsync(5);
        var start = faults.OperationCount;
        faults.FailOperationAt = start + failAt;

        // The operation under test. A roll: one atomic batch of every key, too large for the active shard.
        Exception? failure;
        var batchAcknowledged = false;
        if (operation == "compaction")
        {
            failure = await Record.ExceptionAsync(() => players.CompactAsync());
            Assert.True(failure is null or StoreFaultedException || failure.GetType() == typeof(IOException), $"{context}: {failure}");
        }
        else
        {
            failure = await Record.ExceptionAsync(() => WriteRoundAsync(players, 4, RollNameLength));
            Assert.True(failure is null or StoreFaultedException, $"{context}: {failure}");
            batchAcknowledged = failure is null;
        }

        // The operation's own storage calls, which the sweep fails one by one.
        var steps = faults.OperationCount - start;

        // A write after it (before a machine crash): a clean failure leaves the collection usable, an unknown
        // outcome faults it.
        var after = machineCrash ? await Record.ExceptionAsync(() => players.UpsertAsync(new Player(1, "after", 0, 0))) : new InvalidOperationException("not written");
        if (!machineCrash)
        {
            // Nothing was written after the failure.
        }
        else if (failure is StoreFaultedException)
        {
            Assert.IsType<StoreFaultedException>(after);
        }
        else if (faults.FaultCount == 1 && after is not null)
        {
            // The fault may have hit this write itself, which then faults the collection.
            Assert.IsType<StoreFaultedException>(after);
        }

        var injected = faults.FaultCount;
        await Crash.AndAbandonAsync(fence, memory, store, losesUnsyncedData: machineCrash, tornTail: new Random(failAt ?? 0));

        long checkedWrites = 0;
        await using (var reopened = await StellarStore.OpenAsync(memory, options))
        {
            var again = Players(reopened);
            Assert.False(again.TryGet(5, out _), $"{context}: a deleted key came back");
            Assert.True(again.Count == Keys - 1, $"{context}: {again.Count} keys");

            // An atomic batch is all there or not at all, and there if it was acknowledged.
            var round4 = again.Get(0)?.Name == Name(0, 4, RollNameLength);
            Assert.True(round4 || !batchAcknowledged, $"{context}: an acknowledged batch is gone");
            for (var i = 0; i < Keys; i++)
            {
                if (i is 5 or 1)
                {
                    continue;
                }

                var expected = round4 ? Name(i, 4, RollNameLength) : Name(i, 3, 40);
                Assert.True(again.Get(i)?.Name == expected, $"{context}: key {i} is {again.Get(i)?.Name}, expected {expected}");
                checkedWrites++;
            }

            var one = again.Get(1)?.Name;
            Assert.True(one == "after" || (after is not null && one == (round4 ? Name(1, 4, RollNameLength) : Name(1, 3, 40))), $"{context}: key 1 is {one}");
        }

        return (steps, failure, injected, checkedWrites);
    }
}
