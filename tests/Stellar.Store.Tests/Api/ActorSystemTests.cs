using System.Runtime.CompilerServices;
using Akka.Actor;
using Akka.Configuration;
using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>The store inside an actor system the caller owns (<see cref="StoreOptions.ActorSystem"/>).</summary>
public sealed class ActorSystemTests : IAsyncLifetime
{
    private ActorSystem _system = null!;

    public Task InitializeAsync()
    {
        _system = ActorSystem.Create("user-system", ConfigurationFactory.ParseString("""
            akka.loglevel = WARNING
            akka.stdout-loglevel = WARNING
            akka.coordinated-shutdown.run-by-clr-shutdown-hook = off
            """));
        return Task.CompletedTask;
    }

    public async Task DisposeAsync() => await _system.Terminate();

    [Fact]
    public async Task Dispose_OfAStoreInTheCallersSystem_LeavesTheSystemRunning()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { ActorSystem = _system }))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.InsertAsync(new Player(1, "one", 1, 1));
            await players.WriteAsync(b => b.Upsert(new Player(2, "two", 2, 2)));
            Assert.Equal(2L, players.Count);
            Assert.Equal(new Player(1, "one", 1, 1), players.Get(1));
            Assert.Equal(new Player(2, "two", 2, 2), players.Get(2));
        }

        Assert.False(_system.WhenTerminated.IsCompleted);
        var echo = _system.ActorOf(Props.Create(() => new Echo()));
        Assert.Equal("still here", await echo.Ask<string>("still here", TimeSpan.FromSeconds(30)));

        // A second store in the same system, on the same files: the first one's actors are gone, its writes kept.
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { ActorSystem = _system }))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            Assert.Equal("two", players.Get(2)!.Name);
            await players.InsertAsync(new Player(3, "three", 3, 3));
        }

        Assert.False(_system.WhenTerminated.IsCompleted);

        // A store closed before the system shuts down leaves nothing for the shutdown to trip over.
        await CoordinatedShutdown.Get(_system).Run(CoordinatedShutdown.ClrExitReason.Instance);
        Assert.True(_system.WhenTerminated.IsCompleted);
    }

    /// <summary>
    /// An open in a system that is terminating (a store reopened while its application shuts down) fails, and lets go of
    /// what it took: the directory's lock, else no later open, in this process or the next, could take the store.
    /// </summary>
    [Fact]
    public async Task OpenAsync_InASystemThatTerminated_FailsAndLeavesTheStoreFreeToOpen()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { ActorSystem = _system }))
        {
            await store.GetCollection<int, Player>("players", p => p.Id).InsertAsync(new Player(1, "one", 1, 1));
        }

        var terminated = ActorSystem.Create("terminated-system", ConfigurationFactory.ParseString("akka.loglevel = WARNING"));
        await terminated.Terminate();
        await Assert.ThrowsAsync<InvalidOperationException>(() => StellarStore.OpenAsync(storage, new StoreOptions { ActorSystem = terminated }));

        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { ActorSystem = _system }))
        {
            Assert.Equal("one", store.GetCollection<int, Player>("players", p => p.Id).Get(1)!.Name);
        }
    }

    /// <summary>
    /// The caller's system terminated without its coordinated shutdown closing the store (the store's close had begun
    /// before, or the shutdown does not run at termination): the store's actors are gone, and the close that follows
    /// still ends and lets go of the directory's lock instead of waiting for their answer for ever.
    /// </summary>
    [Fact]
    public async Task DisposeAsync_AfterTheCallersSystemTerminated_EndsAndLeavesTheStoreFreeToOpen()
    {
        var storage = new MemoryStorage();
        var system = ActorSystem.Create("terminating-system", ConfigurationFactory.ParseString("""
            akka.loglevel = WARNING
            akka.coordinated-shutdown.run-by-actor-system-terminate = off
            akka.coordinated-shutdown.run-by-clr-shutdown-hook = off
            """));
        var store = await StellarStore.OpenAsync(storage, new StoreOptions { ActorSystem = system });
        await store.GetCollection<int, Player>("players", p => p.Id).InsertAsync(new Player(1, "one", 1, 1));
        await system.Terminate();

        await store.DisposeAsync().AsTask().ContinueWith(_ => { }, TaskScheduler.Default).WaitAsync(TimeSpan.FromSeconds(30));
        await using (var reopened = await StellarStore.OpenAsync(storage, new StoreOptions { ActorSystem = _system }))
        {
            Assert.Equal("one", reopened.GetCollection<int, Player>("players", p => p.Id).Get(1)!.Name);
        }
    }

    /// <summary>
    /// Buffered writes that only the store's memory holds: the system's coordinated shutdown must flush them to the
    /// device (a power loss right after keeps them) and release the store, which then refuses writes.
    /// </summary>
    [Fact]
    public async Task CoordinatedShutdown_OfTheCallersSystem_FlushesAndClosesTheStore()
    {
        var storage = new MemoryStorage();
        var store = await StellarStore.OpenAsync(storage, new StoreOptions { ActorSystem = _system, Durability = Durability.Buffered });
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        for (var i = 0; i < 100; i++)
        {
            await players.InsertAsync(new Player(i, $"p{i}", i, i));
        }

        await chunks.UpsertAsync(new Chunk { Id = "c", Voxels = [1, 2, 3] });

        await CoordinatedShutdown.Get(_system).Run(CoordinatedShutdown.ClrExitReason.Instance);

        Assert.True(_system.WhenTerminated.IsCompleted);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => players.InsertAsync(new Player(1000, "late", 1, 1)));
        await store.DisposeAsync(); // already closed: a no-op

        storage.SimulateCrash(losesUnsyncedData: true);
        await using var reopened = await StellarStore.OpenAsync(storage);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        Assert.Equal(100L, again.Count);
        Assert.All(Enumerable.Range(0, 100), i => Assert.Equal(new Player(i, $"p{i}", i, i), again.Get(i)));
        Assert.Equal(new byte[] { 1, 2, 3 }, reopened.GetCollection<string, Chunk>("chunks", c => c.Id).Get("c")!.Voxels);
    }

    /// <summary>
    /// A long-lived system (Akka.Hosting) may open and close many stores; a closed store must not stay reachable
    /// from the system, or every closed store's data would stay in memory until the process ends.
    /// </summary>
    [Fact]
    public async Task Dispose_OfAStoreInTheCallersSystem_LetsTheStoreBeCollected()
    {
        var storage = new MemoryStorage();
        var weak = await OpenWriteAndDisposeAsync(storage);
        for (var i = 0; i < 10 && weak.IsAlive; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            await Task.Delay(50);
        }

        Assert.False(weak.IsAlive, "the closed store is still reachable");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private async Task<WeakReference> OpenWriteAndDisposeAsync(MemoryStorage storage)
    {
        var store = await StellarStore.OpenAsync(storage, new StoreOptions { ActorSystem = _system });
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "one", 1, 1));
        await store.DisposeAsync();
        return new WeakReference(store);
    }

    private sealed class Echo : ReceiveActor
    {
        public Echo() => ReceiveAny(m => Sender.Tell(m));
    }
}
