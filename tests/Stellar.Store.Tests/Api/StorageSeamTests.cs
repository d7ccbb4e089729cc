using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>The whole store, actors included, over the storage seam: in memory and with injected faults.</summary>
public sealed class StorageSeamTests
{
    [Fact]
    public async Task OpenAsync_OnMemoryStorage_KeepsWritesAcrossReopen()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.InsertAsync(new Player(1, "a", 1, 10));
            await players.UpsertAsync(new Player(2, "b", 2, 20));
        }

        storage.SimulateCrash(losesUnsyncedData: true);
        await using var reopened = await StellarStore.OpenAsync(storage);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        Assert.Equal(2, again.Count);
        Assert.Equal(new Player(1, "a", 1, 10), again.Get(1));
        Assert.Equal(new Player(2, "b", 2, 20), again.Get(2));
    }

    [Theory]
    [InlineData(Durability.Buffered)]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Fsync)]
    public async Task FlushAsync_InEveryMode_MakesAcknowledgedWritesSurviveAMachineCrash(Durability durability)
    {
        var storage = new MemoryStorage();
        var store = await StellarStore.OpenAsync(storage, new StoreOptions { Durability = durability });
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        for (var i = 0; i < 10; i++)
        {
            await players.InsertAsync(new Player(i, $"p{i}", i, i));
        }

        await store.FlushAsync();
        await Crash.AndAbandonAsync(storage, store, losesUnsyncedData: true); // as a dead process leaves it
        await using var reopened = await StellarStore.OpenAsync(storage);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        Assert.Equal(10, again.Count);
        Assert.All(Enumerable.Range(0, 10), i => Assert.Equal(new Player(i, $"p{i}", i, i), again.Get(i)));
    }

    [Fact]
    public async Task InsertAsync_WhenFsyncFails_FailsTheWriteAndReopenKeepsEarlierWrites()
    {
        var faults = new FaultInjectingStorage(new MemoryStorage());
        await using (var store = await StellarStore.OpenAsync(faults, new StoreOptions { Durability = Durability.Fsync }))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.InsertAsync(new Player(1, "kept", 1, 10));
            faults.FailFlushAt = faults.FlushCount + 1;
            var failed = await Assert.ThrowsAsync<StoreFaultedException>(() => players.InsertAsync(new Player(2, "lost", 2, 20)));
            Assert.IsType<IOException>(failed.InnerException);
            await Assert.ThrowsAsync<StoreFaultedException>(() => players.InsertAsync(new Player(3, "after", 3, 30)));
            Assert.Equal("kept", players.Get(1)!.Name);
            Assert.False(players.TryGet(2, out _));
        }

        ((MemoryStorage)faults.Inner).SimulateCrash(losesUnsyncedData: true);
        await using var reopened = await StellarStore.OpenAsync(faults.Inner);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        Assert.Equal(new Player(1, "kept", 1, 10), again.Get(1));
        Assert.False(again.TryGet(2, out _));
        Assert.Equal(1, again.Count);
    }
}
