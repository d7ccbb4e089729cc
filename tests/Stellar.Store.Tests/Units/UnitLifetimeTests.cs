using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Units;

/// <summary>Units against a store that closes under them, and against a collection that is faulted.</summary>
public sealed class UnitLifetimeTests : IDisposable
{
    private static readonly TimeSpan Hang = TimeSpan.FromMinutes(1);
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(1)]
    [InlineData(1024)]
    public async Task WriteAsync_WhileTheStoreIsDisposed_EveryUnitCompletesAndEveryAcknowledgedOneSurvives(int maxQueuedWrites)
    {
        // With a queue bound of one, units wait for room, and the units a closing round completes admit the next ones.
        var options = new StoreOptions { MaxQueuedWrites = maxQueuedWrites };
        for (var iteration = 0; iteration < 10; iteration++)
        {
            var path = _dir.Sub($"store{iteration}");
            var acknowledged = new System.Collections.Concurrent.ConcurrentBag<int>();
            var store = await StellarStore.OpenAsync(path, options);
            var a = store.GetCollection<int, Account>("a", x => x.Id);
            var b = store.GetCollection<int, Account>("b", x => x.Id);
            using var stop = new CancellationTokenSource();
            var writers = Enumerable.Range(0, 8).Select(w => Task.Run(async () =>
            {
                for (var i = w; ; i += 8)
                {
                    try
                    {
                        await store.WriteAsync(tx =>
                        {
                            tx.In(a).Insert(new Account(i, i));
                            tx.In(b).Insert(new Account(i, -i));
                        }).WaitAsync(Hang);
                        acknowledged.Add(i);
                    }
                    catch (ObjectDisposedException)
                    {
                        return;
                    }
                }
            })).ToArray();

            while (acknowledged.Count < 20 + (iteration * 5))
            {
                await Task.Delay(1);
            }

            await store.DisposeAsync().AsTask().WaitAsync(Hang);

            // Every unit ends: committed before the close, or refused as disposed; none waits forever.
            await Task.WhenAll(writers).WaitAsync(Hang);

            await using var reopened = await StellarStore.OpenAsync(path, options);
            var ra = reopened.GetCollection<int, Account>("a", x => x.Id);
            var rb = reopened.GetCollection<int, Account>("b", x => x.Id);
            Assert.Equal(ra.Query().Select(x => x.Id).Order(), rb.Query().Select(x => x.Id).Order());
            Assert.All(acknowledged, i => Assert.True(ra.TryGet(i, out _) && rb.TryGet(i, out _), $"acknowledged unit {i} is missing"));
        }
    }

    [Fact]
    public async Task WriteAsync_ToAFaultedCollection_FailsAsFaultedStoresNothingAndOtherUnitsGoOn()
    {
        var memory = new MemoryStorage();
        var faults = new FaultInjectingStorage(memory);
        var store = await faults.OpenStoreAsync();
        try
        {
            var a = store.GetCollection<int, Account>("a", x => x.Id);
            var b = store.GetCollection<int, Account>("b", x => x.Id);
            var c = store.GetCollection<int, Account>("c", x => x.Id);
            await b.InsertAsync(new Account(1, 1));
            faults.FailAppendAt = faults.AppendCount + 1;
            await Assert.ThrowsAsync<StoreFaultedException>(() => b.InsertAsync(new Account(2, 2)));

            await Assert.ThrowsAsync<StoreFaultedException>(() => store.WriteAsync(tx =>
            {
                tx.In(a).Insert(new Account(1, 1));
                tx.In(b).Insert(new Account(3, 3));
            }).WaitAsync(Hang));
            Assert.False(a.TryGet(1, out _));

            await store.WriteAsync(tx =>
            {
                tx.In(a).Insert(new Account(1, 1));
                tx.In(c).Insert(new Account(1, 1));
            }).WaitAsync(Hang);
        }
        finally
        {
            await Crash.AbandonAsync(store).WaitAsync(Hang);
        }

        await using var reopened = await StellarStore.OpenAsync(memory, new StoreOptions());
        Assert.Equal(1, reopened.GetCollection<int, Account>("a", x => x.Id).Count);
        Assert.Equal(1, reopened.GetCollection<int, Account>("c", x => x.Id).Count);
        Assert.False(reopened.GetCollection<int, Account>("b", x => x.Id).TryGet(3, out _));
    }
}
