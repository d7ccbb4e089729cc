using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Reliability;

namespace Stellar.Store.Tests.Units;

/// <summary>Parts of a unit whose decision never reached storage: left out at the next open, and counted.</summary>
public sealed class UncommittedUnitTests
{
    [Fact]
    public async Task Statistics_AfterACrashBeforeAUnitsDecision_CountEachCollectionsLeftOutPartAndItsRecordsAreAbsent()
    {
        var options = new StoreOptions { Durability = Durability.WriteThrough };
        var memory = new MemoryStorage();
        using var fence = new CrashFence(memory);
        var faults = new FaultInjectingStorage(fence);
        var store = await StellarStore.OpenAsync(faults, options);
        var names = new[] { "a", "b", "c" };
        var collections = names.Select(n => store.GetCollection<int, Account>(n, x => x.Id)).ToArray();
        await store.WriteAsync(tx =>
        {
            foreach (var collection in collections)
            {
                tx.In(collection).Insert(new Account(1, 1));
            }
        });

        // In WriteThrough mode a unit over three collections makes four storage calls: one append per part, then the
        // decision's append, which fails here before it reaches storage.
        var start = faults.OperationCount;
        faults.FailOperationAt = start + 4;
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.WriteAsync(tx =>
        {
            foreach (var collection in collections)
            {
                tx.In(collection).Insert(new Account(2, 2)).Update(new Account(1, 5));
            }
        }));
        Assert.Equal(start + 4, faults.OperationCount);
        await Crash.AndAbandonAsync(fence, memory, store, losesUnsyncedData: false);

        await using var reopened = await StellarStore.OpenAsync(memory, options);
        foreach (var name in names)
        {
            var again = reopened.GetCollection<int, Account>(name, x => x.Id);
            Assert.Equal(1, again.Statistics.UncommittedUnitBlocks);
            Assert.Equal(new[] { new Account(1, 1) }, again.Query().ToArray());
        }
    }
}
