namespace Stellar.Store.Tests.Api;

/// <summary>
/// The first <see cref="StellarStore.GetCollection{TKey,TValue}"/> of a collection after open reads its shards.
/// While it does, the rest of the store goes on: other collections open and write, flushes and compactions complete;
/// and closing the store waits for the load rather than pulling the files from under it.
/// </summary>
public sealed class CollectionLoadTests : IDisposable
{
    // Generous bounds on waits that a working store meets at once: they turn a stall into a failure, not a hang.
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    // The collection created first gets id 1; its shard files are named c00000001-<shard id>.shard.
    private const string SlowShardPrefix = "c00000001-";

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task FlushCompactAndOtherCollections_WhileACollectionLoads_CompleteWithoutWaitingForTheLoad()
    {
        var slowPlayers = Players(1, 500);
        await WriteAsync(slowPlayers, Players(10_001, 10));
        var storage = new GatedReadStorage(_dir.Path);
        var store = await StellarStore.OpenAsync(storage);
        try
        {
            var fast = store.GetCollection<int, Player>("fast", p => p.Id);
            storage.CloseGate(SlowShardPrefix);
            var slowLoad = Task.Run(() => store.GetCollection<int, Player>("slow", p => p.Id));
            await storage.Reached.WaitAsync(Bound);

            var meanwhile = Task.Run(async () =>
            {
                await fast.UpsertAsync(new Player(10_011, "late", 1, 1));
                var created = store.GetCollection<int, Player>("created", p => p.Id);
                await created.InsertAsync(new Player(1, "new", 1, 1));
                await store.FlushAsync();
                await store.CompactAsync();
            });
            await meanwhile.WaitAsync(Bound);
            Assert.False(slowLoad.IsCompleted, "the slow collection loaded although its reads were still held at the gate");

            storage.OpenGate();
            var slow = await slowLoad.WaitAsync(Bound);
            Assert.Equal(slowPlayers.OrderBy(p => p.Id), slow.Query(_ => true).OrderBy(p => p.Id));
            Assert.Same(slow, store.GetCollection<int, Player>("slow", p => p.Id));
            Assert.Equal(11, fast.Count);
        }
        finally
        {
            storage.OpenGate();
            await store.DisposeAsync();
        }
    }

    [Fact]
    public async Task GetCollection_WithOtherTypesWhileTheCollectionLoads_ThrowsInvalidOperationOnceItIsLoaded()
    {
        await WriteAsync(Players(1, 100), []);
        var storage = new GatedReadStorage(_dir.Path);
        await using var store = await StellarStore.OpenAsync(storage);
        storage.CloseGate(SlowShardPrefix);
        var slowLoad = Task.Run(() => store.GetCollection<int, Player>("slow", p => p.Id));
        await storage.Reached.WaitAsync(Bound);

        var mismatch = Task.Run(() => store.GetCollection<string, Player>("slow", p => p.Name));
        storage.OpenGate();

        await Assert.ThrowsAsync<InvalidOperationException>(() => mismatch.WaitAsync(Bound));
        Assert.Equal(100, (await slowLoad.WaitAsync(Bound)).Count);
    }

    [Fact]
    public async Task DisposeAsync_WhileACollectionLoads_WaitsForItAndLeavesAStoreThatReopensWhole()
    {
        var slowPlayers = Players(1, 300);
        await WriteAsync(slowPlayers, []);
        var storage = new GatedReadStorage(_dir.Path);
        var store = await StellarStore.OpenAsync(storage);
        storage.CloseGate(SlowShardPrefix);
        var slowLoad = Task.Run(() => store.GetCollection<int, Player>("slow", p => p.Id));
        await storage.Reached.WaitAsync(Bound);

        var dispose = Task.Run(async () => await store.DisposeAsync());
        storage.OpenGate();
        await dispose.WaitAsync(Bound);

        // The load either finished before the close took the collection with it, or met the closed store.
        try
        {
            var slow = await slowLoad.WaitAsync(Bound);
            await Assert.ThrowsAsync<ObjectDisposedException>(() => slow.UpsertAsync(new Player(1, "after close", 1, 1)));
        }
        catch (ObjectDisposedException)
        {
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        var again = reopened.GetCollection<int, Player>("slow", p => p.Id);
        Assert.Equal(slowPlayers.OrderBy(p => p.Id), again.Query(_ => true).OrderBy(p => p.Id));
    }

    private static List<Player> Players(int first, int count) =>
        Enumerable.Range(first, count).Select(i => new Player(i, $"player {i}", i % 90, i * 10L)).ToList();

    private async Task WriteAsync(IReadOnlyList<Player> slow, IReadOnlyList<Player> fast)
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var slowCollection = store.GetCollection<int, Player>("slow", p => p.Id);
        var fastCollection = store.GetCollection<int, Player>("fast", p => p.Id);
        foreach (var player in slow)
        {
            await slowCollection.InsertAsync(player);
        }

        foreach (var player in fast)
        {
            await fastCollection.InsertAsync(player);
        }
    }
}
