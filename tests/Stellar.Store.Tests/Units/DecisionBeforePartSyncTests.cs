using Stellar.Store.Format;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Reliability;

namespace Stellar.Store.Tests.Units;

/// <summary>
/// A round's decision is made durable while its parts are still being fsynced, so a crash can leave the decision on
/// disk and a part not. Such a round must be absent everywhere after the reopen, and stay so; a round that ended must
/// stay whole, also after a compaction moved its parts.
/// </summary>
public sealed class DecisionBeforePartSyncTests
{
    // Collections get ids in the order they are first opened, and the unit log is made at the first unit: a, b, log.
    private const string BShards = "c00000002-";
    private const string LogShards = "c00000003-";

    private static readonly TimeSpan Hang = TimeSpan.FromMinutes(1);

    [Fact]
    public async Task Reopen_AfterACrashWithTheDecisionDurableAndOnePartNot_LeavesTheRoundOutEverywhereAndStaysSoAfterMoreWritesAndACompaction()
    {
        var options = new StoreOptions { Durability = Durability.Fsync };
        var memory = await CrashBetweenDecisionAndPartAsync(options);

        await using (var reopened = await StellarStore.OpenAsync(memory, options))
        {
            var (a2, b2) = (reopened.GetCollection<int, Account>("a", x => x.Id), reopened.GetCollection<int, Account>("b", x => x.Id));
            Assert.Equal(new[] { new Account(1, 10) }, a2.Query().ToArray());
            Assert.Equal(new[] { new Account(1, 10) }, b2.Query().ToArray());
            Assert.Equal(1, a2.Statistics.UncommittedUnitBlocks);

            // Later rounds and a compaction, which drops the left-out part for good: the answer must not change.
            await reopened.WriteAsync(tx =>
            {
                tx.In(a2).Update(new Account(1, 9)).Insert(new Account(3, 1));
                tx.In(b2).Update(new Account(1, 11)).Insert(new Account(3, 1));
            });
            await reopened.CompactAsync();
        }

        await using var again = await StellarStore.OpenAsync(memory, options);
        Assert.Equal(new[] { new Account(1, 9), new Account(3, 1) }, again.GetCollection<int, Account>("a", x => x.Id).Query().OrderBy(x => x.Id).ToArray());
        Assert.Equal(new[] { new Account(1, 11), new Account(3, 1) }, again.GetCollection<int, Account>("b", x => x.Id).Query().OrderBy(x => x.Id).ToArray());
    }

    [Fact]
    public async Task Reopen_WithTheUnitLogPutBackToBeforeItsSettle_LeavesTheRoundOutAlthoughAnotherBlockNowLiesWhereItsLostPartWent()
    {
        var options = new StoreOptions { Durability = Durability.Fsync };
        var memory = await CrashBetweenDecisionAndPartAsync(options);
        var logFile = memory.List().Single(n => n.StartsWith(LogShards, StringComparison.Ordinal));
        var unsettled = memory.ReadAllBytes(logFile);

        // The reopen settles the round; then b's next part is written where the lost one had been.
        await using (var reopened = await StellarStore.OpenAsync(memory, options))
        {
            var (a2, b2) = (reopened.GetCollection<int, Account>("a", x => x.Id), reopened.GetCollection<int, Account>("b", x => x.Id));
            await reopened.WriteAsync(tx =>
            {
                tx.In(a2).Insert(new Account(3, 1));
                tx.In(b2).Insert(new Account(3, 1));
            });
        }

        // A player puts back a copy of the unit log's file from before that settle: the round's decision names its
        // blocks again, and at b's a block of another session lies there now.
        memory.ReplaceAtomically(logFile, unsettled);
        await using var again = await StellarStore.OpenAsync(memory, options);
        var (a3, b3) = (again.GetCollection<int, Account>("a", x => x.Id), again.GetCollection<int, Account>("b", x => x.Id));
        Assert.Equal(new[] { new Account(1, 10) }, a3.Query().ToArray());
        Assert.Equal(new[] { new Account(1, 10) }, b3.Query().ToArray());
    }

    [Fact]
    public async Task Reopen_AfterACrashWhenARoundEndedAndACompactionRetiredTheShardOfItsPart_KeepsTheRoundWhole()
    {
        var options = new StoreOptions { Durability = Durability.Fsync, MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };
        var memory = new MemoryStorage();
        using var fence = new CrashFence(memory);
        var store = await StellarStore.OpenAsync(fence, options);
        var (a, b) = (store.GetCollection<int, Account>("a", x => x.Id), store.GetCollection<int, Account>("b", x => x.Id));
        await store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 10));
            tx.In(b).Insert(new Account(1, 10));
        });

        // Enough overwrites in a to seal the shard that holds its part, then a compaction that replaces that shard.
        var firstShardOfA = StoreFileNames.Shard(1, 1);
        for (var i = 0; i < 4_000; i++)
        {
            await a.UpsertAsync(new Account(100 + (i % 10), i));
        }

        await a.CompactAsync();
        await WaitUntil(() => !memory.Exists(firstShardOfA));

        await Crash.AndAbandonAsync(fence, memory, store, losesUnsyncedData: true);
        await using var reopened = await StellarStore.OpenAsync(memory, options);
        Assert.Equal(new Account(1, 10), reopened.GetCollection<int, Account>("a", x => x.Id).Get(1));
        Assert.Equal(new Account(1, 10), reopened.GetCollection<int, Account>("b", x => x.Id).Get(1));
        Assert.Equal(0, reopened.GetCollection<int, Account>("b", x => x.Id).Statistics.UncommittedUnitBlocks);
    }

    /// <summary>
    /// Writes a unit over a and b, then one more whose part in b waits for its fsync while its decision is made durable,
    /// and crashes the machine there: b's part, written but never fsynced, is lost; a's part and the decision are on disk.
    /// </summary>
    private static async Task<MemoryStorage> CrashBetweenDecisionAndPartAsync(StoreOptions options)
    {
        var memory = new MemoryStorage();
        using var fence = new CrashFence(memory);
        var storage = new SyncGateStorage(fence, name => name.StartsWith(BShards, StringComparison.Ordinal));
        var store = await StellarStore.OpenAsync(storage, options);
        var (a, b) = (store.GetCollection<int, Account>("a", x => x.Id), store.GetCollection<int, Account>("b", x => x.Id));
        await store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 10));
            tx.In(b).Insert(new Account(1, 10));
        });

        var logSyncs = storage.Syncs(LogShards);
        storage.Shut();
        var unit = store.WriteAsync(tx =>
        {
            tx.In(a).Update(new Account(1, 5)).Insert(new Account(2, 5));
            tx.In(b).Update(new Account(1, 15)).Insert(new Account(2, 5));
        });
        await WaitUntil(() => storage.Waiting == 1 && storage.Syncs(LogShards) > logSyncs);
        Assert.False(unit.IsCompleted);

        fence.Crash(() => memory.SimulateCrash(losesUnsyncedData: true));
        storage.Open();
        await Crash.AbandonAsync(store);
        await Assert.ThrowsAnyAsync<Exception>(() => unit);
        return memory;
    }

    private static async Task WaitUntil(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + Hang;
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "the store never reached the state the test waits for");
            await Task.Delay(5);
        }
    }
}
