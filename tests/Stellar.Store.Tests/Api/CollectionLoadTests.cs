using Stellar.Store.Tests.Expiry;

namespace Stellar.Store.Tests.Api;

/// <summary>
/// The first <see cref="StellarStore.GetCollection{TKey,TValue}"/> (or <see cref="StellarStore.GetCollectionAsync{TKey,TValue}"/>)
/// of a collection after open reads its shards.
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

    [Fact]
    public async Task GetCollectionAsync_WhileTheShardsAreHeld_ReturnsAtOnceAndCompletesWithEveryRecordOnceTheyAreRead()
    {
        var slowPlayers = Players(1, 200);
        var (store, storage) = await OpenWithSlowShardsHeldAsync(slowPlayers);
        await using var closing = store;

        // Called on the test's own thread: a load run on it would hold it at the gate, and the test would fail there.
        var loading = store.GetCollectionAsync<int, Player>("slow", p => p.Id);
        await storage.Reached.WaitAsync(Bound);
        Assert.False(loading.IsCompleted, "the collection loaded although its reads were still held at the gate");

        storage.OpenGate();
        var slow = await loading.WaitAsync(Bound);
        Assert.Equal(slowPlayers.OrderBy(p => p.Id), slow.Query(_ => true).OrderBy(p => p.Id));
        await slow.InsertAsync(new Player(1_000, "new", 1, 1));
        Assert.Equal(201, slow.Count);
    }

    [Fact]
    public async Task GetCollectionAsync_CalledTwiceWhileTheCollectionLoads_GivesBothCallsTheSameCollection()
    {
        var (store, storage) = await OpenWithSlowShardsHeldAsync(Players(1, 100));
        await using var closing = store;
        var first = store.GetCollectionAsync<int, Player>("slow", p => p.Id);
        await storage.Reached.WaitAsync(Bound);
        var second = store.GetCollectionAsync<int, Player>("slow", p => p.Id);

        storage.OpenGate();

        var one = await first.WaitAsync(Bound);
        Assert.Same(one, await second.WaitAsync(Bound));
        Assert.Same(one, store.GetCollection<int, Player>("slow", p => p.Id));
        Assert.Same(one, await store.GetCollectionAsync<int, Player>("slow", p => p.Id));
        Assert.Equal(100, one.Count);
    }

    [Fact]
    public async Task GetCollectionAsync_CancelledWhileTheCollectionLoads_ThrowsAtOnceAndTheNextCallGetsTheWholeCollection()
    {
        var slowPlayers = Players(1, 300);
        var (store, storage) = await OpenWithSlowShardsHeldAsync(slowPlayers);
        await using var closing = store;
        using var cancel = new CancellationTokenSource();
        var cancelled = store.GetCollectionAsync<int, Player>("slow", p => p.Id, cancel.Token);
        await storage.Reached.WaitAsync(Bound);

        // The reads are still held: the cancelled call does not wait for the load to end.
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled.WaitAsync(Bound));

        storage.OpenGate();
        var slow = await store.GetCollectionAsync<int, Player>("slow", p => p.Id).WaitAsync(Bound);
        Assert.Equal(slowPlayers.OrderBy(p => p.Id), slow.Query(_ => true).OrderBy(p => p.Id));
        await slow.UpsertAsync(new Player(1, "renamed", 2, 2));
        Assert.Equal("renamed", slow.Get(1)?.Name);
        Assert.Equal(CollectionHealthOf(store, "slow"), new CollectionHealth("slow", null, null));
    }

    [Fact]
    public async Task GetCollectionAsync_WithATokenCancelledBeforeTheCall_CreatesNothingAndALaterCallWorks()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        using var cancel = new CancellationTokenSource();
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => store.GetCollectionAsync<int, Player>("players", p => p.Id, cancel.Token));
        Assert.DoesNotContain("players", store.CollectionNames);

        var players = await store.GetCollectionAsync<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "one", 1, 1));
        Assert.Equal(["players"], store.CollectionNames);
    }

    [Fact]
    public async Task GetCollectionAsync_WithWhatGetCollectionRefuses_ThrowsTheSameFromTheCall()
    {
        var store = await StellarStore.OpenAsync(_dir.Path);
        store.GetCollection<int, Player>("players", p => p.Id);

        Assert.Throws<ArgumentException>(() => { _ = store.GetCollectionAsync<int, Player>("../players", p => p.Id); });
        Assert.Throws<ArgumentNullException>(() => { _ = store.GetCollectionAsync<int, Player>("others", null!); });
        Assert.Throws<InvalidOperationException>(() => { _ = store.GetCollectionAsync<string, Player>("players", p => p.Name); });
        Assert.Throws<ArgumentException>(() => { _ = store.GetCollectionAsync<int, IDisposable>("things", _ => 1); });
        Assert.Equal(["players"], store.CollectionNames);

        await store.DisposeAsync();
        Assert.Throws<ObjectDisposedException>(() => { _ = store.GetCollectionAsync<int, Player>("players", p => p.Id); });
    }

    [Fact]
    public async Task GetCollection_WhenItsLoadFailsAfterTheWriterStarted_FailsTheSameWayOnRetryAndLoadsOnceTheCauseIsGone()
    {
        var slowPlayers = Players(1, 50);
        await WriteAsync(slowPlayers, []);
        var clock = new HandTimerClock { RefusesTimers = true };
        await using var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { Clock = clock });

        // The collection's expiry timer is made after its writer started: its refusal fails the load there.
        var first = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => Task.Run(() => store.GetCollection<int, Player>("slow", p => p.Id)).WaitAsync(Bound));
        var again = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => Task.Run(() => store.GetCollection<int, Player>("slow", p => p.Id)).WaitAsync(Bound));
        Assert.Equal(first.Message, again.Message);
        Assert.Empty(store.GetCollectionHealth());

        clock.RefusesTimers = false;
        var slow = await Task.Run(() => store.GetCollection<int, Player>("slow", p => p.Id)).WaitAsync(Bound);
        Assert.Equal(slowPlayers.OrderBy(p => p.Id), slow.Query(_ => true).OrderBy(p => p.Id));
        await slow.UpsertAsync(new Player(1, "renamed", 2, 2));
        Assert.Equal(CollectionHealthOf(store, "slow"), new CollectionHealth("slow", null, null));
    }

    [Fact]
    public async Task GetCollectionAsync_WhenItsLoadFailsAfterTheWriterStarted_FailsTheSameWayOnRetryAndTheStoreClosesAndReopensWhole()
    {
        var slowPlayers = Players(1, 50);
        await WriteAsync(slowPlayers, []);
        var clock = new HandTimerClock { RefusesTimers = true };
        var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { Clock = clock });

        // A wait cancelled meanwhile ends (cancelled, or failed when the load failed first); the load itself still ends
        // whole, failed, and leaves nothing behind for the calls after it.
        using var cancel = new CancellationTokenSource();
        var cancelled = store.GetCollectionAsync<int, Player>("slow", p => p.Id, cancel.Token);
        await cancel.CancelAsync();
        var waited = await Record.ExceptionAsync(() => cancelled.WaitAsync(Bound));
        Assert.True(waited is OperationCanceledException or ArgumentOutOfRangeException, $"the cancelled wait ended with {waited}");
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => store.GetCollectionAsync<int, Player>("slow", p => p.Id).WaitAsync(Bound));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => store.GetCollectionAsync<int, Player>("slow", p => p.Id).WaitAsync(Bound));

        await store.DisposeAsync().AsTask().WaitAsync(Bound);
        await using var reopened = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { Clock = clock });
        clock.RefusesTimers = false;
        var slow = await reopened.GetCollectionAsync<int, Player>("slow", p => p.Id).WaitAsync(Bound);
        Assert.Equal(slowPlayers.OrderBy(p => p.Id), slow.Query(_ => true).OrderBy(p => p.Id));
    }

    [Fact]
    public async Task GetCollection_WhenARecordDoesNotDecode_FailsTheSameWayOnRetryAndOtherCollectionsKeepWorking()
    {
        var slowPlayers = Players(1, 50);
        await WriteAsync(slowPlayers, Players(1_001, 5));
        await using (var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { Serializer = UnreadablePlayerFormatter.Options }))
        {
            var first = await Assert.ThrowsAsync<CorruptBlockException>(() => Task.Run(() => store.GetCollection<int, Player>("slow", p => p.Id)).WaitAsync(Bound));
            var again = await Assert.ThrowsAsync<CorruptBlockException>(() => Task.Run(() => store.GetCollection<int, Player>("slow", p => p.Id)).WaitAsync(Bound));
            // The same shard; the block named is whichever failed first of those decoded at once.
            Assert.Equal(first.Path, again.Path);

            var created = store.GetCollection<int, Account>("created", a => a.Id);
            await created.InsertAsync(new Account(1, 1));
            await store.FlushAsync().WaitAsync(Bound);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        Assert.Equal(slowPlayers.OrderBy(p => p.Id), reopened.GetCollection<int, Player>("slow", p => p.Id).Query(_ => true).OrderBy(p => p.Id));
        Assert.Equal(1, reopened.GetCollection<int, Account>("created", a => a.Id).Count);
    }

    /// <summary>A store holding <paramref name="slow"/> in collection "slow", opened with the reads of its shards held at the gate.</summary>
    private async Task<(StellarStore Store, GatedReadStorage Storage)> OpenWithSlowShardsHeldAsync(IReadOnlyList<Player> slow)
    {
        await WriteAsync(slow, []);
        var storage = new GatedReadStorage(_dir.Path);
        var store = await StellarStore.OpenAsync(storage);
        storage.CloseGate(SlowShardPrefix);
        return (store, storage);
    }

    private static CollectionHealth CollectionHealthOf(StellarStore store, string name) =>
        Assert.Single(store.GetCollectionHealth(), h => h.Name == name);

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
