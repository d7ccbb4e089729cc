using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Reliability;

namespace Stellar.Store.Tests.Units;

/// <summary>
/// A collection's first shard is made when the collection loads; when the manifest replace that lists it fails, the
/// shard is listed in memory only. Writes acknowledged after that must still be found at the next open: the unit log's
/// decisions above all, without which every unit would be left out.
/// </summary>
public sealed class FirstShardFailureTests
{
    [Theory]
    [InlineData(Durability.Buffered, false)]
    [InlineData(Durability.WriteThrough, false)]
    [InlineData(Durability.Fsync, false)]
    [InlineData(Durability.Fsync, true)]
    public async Task WriteAsync_AfterTheUnitLogsFirstShardFailedToBeListed_EveryAcknowledgedUnitSurvivesTheCrash(Durability durability, bool machineCrash)
    {
        var options = new StoreOptions { Durability = durability };
        var memory = new MemoryStorage();
        using var fence = new CrashFence(memory);
        var faults = new FaultInjectingStorage(fence);
        var store = await StellarStore.OpenAsync(faults, options);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);

        // The first unit loads the unit log: its manifest entry is saved, then its first shard is listed, which fails.
        faults.FailReplaceAt = faults.ReplaceCount + 2;
        var acknowledged = new List<int>();
        for (var i = 0; i < 5; i++)
        {
            var outcome = await Record.ExceptionAsync(() => store.WriteAsync(tx =>
            {
                tx.In(a).Insert(new Account(i, i));
                tx.In(b).Insert(new Account(i, -i));
            }));
            Assert.True(outcome is null or StoreFaultedException, $"unit {i} failed with {outcome}");
            if (outcome is null)
            {
                acknowledged.Add(i);
            }
        }

        Assert.Equal(1, faults.FaultCount);
        if (await Record.ExceptionAsync(store.FlushAsync) is not null)
        {
            acknowledged.Clear();
        }

        await Crash.AndAbandonAsync(fence, memory, store, losesUnsyncedData: machineCrash);

        await using var reopened = await StellarStore.OpenAsync(memory, options);
        var ra = reopened.GetCollection<int, Account>("a", x => x.Id);
        var rb = reopened.GetCollection<int, Account>("b", x => x.Id);
        Assert.All(acknowledged, i => Assert.True(ra.TryGet(i, out _) && rb.TryGet(i, out _), $"acknowledged unit {i} is gone"));
        Assert.Equal(ra.Query().Select(x => x.Id).Order(), rb.Query().Select(x => x.Id).Order());
    }

    [Theory]
    [InlineData(Durability.Buffered)]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Fsync)]
    public async Task InsertAsync_AfterACollectionsFirstShardFailedToBeListed_EveryAcknowledgedWriteSurvivesTheCrash(Durability durability)
    {
        var options = new StoreOptions { Durability = durability };
        var memory = new MemoryStorage();
        using var fence = new CrashFence(memory);
        var faults = new FaultInjectingStorage(fence);
        var store = await StellarStore.OpenAsync(faults, options);
        faults.FailReplaceAt = faults.ReplaceCount + 2;
        var players = store.GetCollection<int, Account>("players", x => x.Id);
        Assert.Equal(1, faults.FaultCount);

        var acknowledged = new List<int>();
        for (var i = 0; i < 5; i++)
        {
            if (await Record.ExceptionAsync(() => players.InsertAsync(new Account(i, i))) is null)
            {
                acknowledged.Add(i);
            }
        }

        if (await Record.ExceptionAsync(store.FlushAsync) is not null)
        {
            acknowledged.Clear();
        }

        await Crash.AndAbandonAsync(fence, memory, store, losesUnsyncedData: false);

        await using var reopened = await StellarStore.OpenAsync(memory, options);
        var again = reopened.GetCollection<int, Account>("players", x => x.Id);
        Assert.All(acknowledged, i => Assert.True(again.TryGet(i, out _), $"acknowledged write {i} is gone"));
    }
}
