namespace Stellar.Store.Tests.Api;

/// <summary>
/// A value is serialized when its write is called: changes the caller makes to the object afterwards reach no read,
/// no compaction and no reopened store. The oracle is the test's own record of each value as it was written.
/// </summary>
public sealed class WrittenValueIsolationTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Reads_AfterTheCallerChangesAWrittenObject_ReturnTheValueAsWritten(bool copyOnRead)
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { CopyOnRead = copyOnRead });
        var heroes = store.GetCollection<int, Hero>("heroes", h => h.Id);
        var hero = new Hero { Id = 1, Gold = 10, Items = ["sword"] };
        await heroes.UpsertAsync(hero);

        hero.Gold = 999;
        hero.Items.Add("stolen crown");

        AssertAsWritten(heroes.Get(1));
        using var view = heroes.Snapshot();
        AssertAsWritten(view.Get(1));
        AssertAsWritten(Assert.Single(heroes.Query()));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task CompactAsync_AfterTheCallerChangesWrittenObjects_StoresTheValuesAsWritten(bool copyOnRead)
    {
        var options = new StoreOptions { CopyOnRead = copyOnRead };
        var written = new Dictionary<int, (long Gold, int Items)>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var heroes = store.GetCollection<int, Hero>("heroes", h => h.Id);
            var live = new List<Hero>();
            for (var id = 0; id < 50; id++)
            {
                var hero = new Hero { Id = id, Gold = id, Items = ["sword"] };
                await heroes.UpsertAsync(hero);
                written[id] = (hero.Gold, hero.Items.Count);
                live.Add(hero);
            }

            // Overwrite half of them so that the compaction has dead records to drop, then keep playing with every object.
            for (var id = 0; id < 50; id += 2)
            {
                var hero = new Hero { Id = id, Gold = 1000 + id, Items = ["shield"] };
                await heroes.UpsertAsync(hero);
                written[id] = (hero.Gold, hero.Items.Count);
                live[id] = hero;
            }

            foreach (var hero in live)
            {
                hero.Gold = -1;
                hero.Items.Add("unsaved loot");
            }

            await heroes.CompactAsync();
            foreach (var (id, expected) in written)
            {
                var stored = heroes.Get(id);
                Assert.NotNull(stored);
                Assert.Equal(expected, (stored.Gold, stored.Items.Count));
            }
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var heroes = store.GetCollection<int, Hero>("heroes", h => h.Id);
            Assert.Equal(written.Count, heroes.Count);
            foreach (var (id, expected) in written)
            {
                var stored = heroes.Get(id);
                Assert.NotNull(stored);
                Assert.Equal(expected, (stored.Gold, stored.Items.Count));
            }
        }
    }

    [Fact]
    public async Task Reads_AfterTheCallerChangesTheKeyObjectOfAWrite_FindTheRecordUnderTheKeyWritten()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var slots = store.GetCollection<SlotKey, Slot>("slots", s => s.Key);
            var slot = new Slot { Key = new SlotKey { Zone = "north", Slot = 1 }, Item = "sword" };
            await slots.UpsertAsync(slot);

            // The game moves its object to another slot without writing it.
            slot.Key.Slot = 2;

            Assert.Equal("sword", slots.Get(new SlotKey { Zone = "north", Slot = 1 })?.Item);
            Assert.Null(slots.Get(new SlotKey { Zone = "north", Slot = 2 }));
            Assert.True(await slots.DeleteAsync(new SlotKey { Zone = "north", Slot = 1 }));
            Assert.Equal(0, slots.Count);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            Assert.Equal(0, store.GetCollection<SlotKey, Slot>("slots", s => s.Key).Count);
        }
    }

    [Fact]
    public async Task Writes_WhenAValueDoesNotReadBack_AreRefusedAndStoreNothing()
    {
        var options = new StoreOptions { Serializer = UnreadablePlayerFormatter.Options };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await Assert.ThrowsAsync<ArgumentException>(() => players.UpsertAsync(new Player(1, "Ada", 1, 10)));
            await Assert.ThrowsAsync<ArgumentException>(() => players.WriteAsync(b => b.Upsert(new Player(2, "Bo", 1, 10))));
            Assert.Equal(0, players.Count);
        }

        // Nothing was acknowledged, so nothing is there, and the collection loads.
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            Assert.Equal(0, store.GetCollection<int, Player>("players", p => p.Id).Count);
        }
    }

    private static void AssertAsWritten(Hero? read)
    {
        Assert.NotNull(read);
        Assert.Equal(10, read.Gold);
        Assert.Equal(["sword"], read.Items);
    }
}
