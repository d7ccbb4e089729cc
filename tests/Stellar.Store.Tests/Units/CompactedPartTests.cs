using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Units;

/// <summary>
/// A compaction copies the records of a round's part as plain records, which count without a decision: the round's
/// decision must be durable before the copy is swapped in, or a crash keeps that part and drops the others.
/// </summary>
public sealed class CompactedPartTests
{
    [Theory]
    [InlineData(Durability.Buffered)]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Fsync)]
    public async Task Reopen_AfterACompactionCopiedAPartAndTheProcessDied_HasTheUnitWhole(Durability durability)
    {
        var options = new StoreOptions { Durability = durability, MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };
        var memory = new MemoryStorage();
        var store = await StellarStore.OpenAsync(memory, options);
        var (a, b) = (store.GetCollection<int, Account>("a", x => x.Id), store.GetCollection<int, Account>("b", x => x.Id));
        await store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 10));
            tx.In(b).Insert(new Account(1, 10));
        });

        // Enough overwrites in a to seal the shard that holds its part, then a compaction that copies the part's record.
        for (var i = 0; i < 4_000; i++)
        {
            await a.UpsertAsync(new Account(100 + (i % 10), i));
        }

        await a.CompactAsync();
        Assert.True(a.Statistics.Compactions > 0, "the compaction ran");

        // No flush: in Buffered mode the unit's decision was in memory only, unless the compaction made it durable.
        await Crash.AndAbandonAsync(memory, store, losesUnsyncedData: false);
        await using var reopened = await StellarStore.OpenAsync(memory, options);
        var unitInA = reopened.GetCollection<int, Account>("a", x => x.Id).Get(1);
        var unitInB = reopened.GetCollection<int, Account>("b", x => x.Id).Get(1);
        Assert.Equal(unitInA is null, unitInB is null);
        Assert.Equal(new Account(1, 10), unitInA);
    }
}
