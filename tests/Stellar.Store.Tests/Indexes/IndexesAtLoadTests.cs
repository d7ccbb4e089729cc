using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// Indexes declared with a collection's load (<see cref="IndexDefinition{TIndexKey,TValue}"/> given to
/// <c>GetCollection</c>): built before the collection is handed out, from the records as they ended (replaced and
/// deleted ones left out), kept with every write after, failing alone, and declared on a collection loaded already.
/// Every answer is checked against a scan of the test's own copy of the records.
/// </summary>
public sealed class IndexesAtLoadTests : IDisposable
{
    private static readonly IndexDefinition<long, Player> ByGold = new("by-gold", p => p.Gold);
    private static readonly IndexDefinition<string, Player> ByName = new("by-name", p => p.Name, unique: true);
    private static readonly IndexDefinition<(int, long), Player> ByLevelGold = new("by-level-gold", p => (p.Level, p.Gold));
    private static readonly IndexDefinition<string, Gear> ByTag = IndexDefinition.Many<string, Gear>("by-tag", g => g.Tags);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task GetCollection_WithDefinitions_ReturnsTheCollectionWithItsIndexesBuiltFromTheRecordsAsTheyEnded()
    {
        var options = new StoreOptions { LargeValueThreshold = 1_024 };
        var model = new Dictionary<int, Player>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await Write(players, model, seed: 1);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id, ByGold, ByName, ByLevelGold);
            var (byGold, byName, byLevelGold) = (players.Index(ByGold), players.Index(ByName), players.Index(ByLevelGold));

            // Built with the load: answering before anything is awaited.
            Assert.True(byGold.Ready.IsCompletedSuccessfully);
            Assert.True(byName.Ready.IsCompletedSuccessfully);
            Assert.True(byLevelGold.Ready.IsCompletedSuccessfully);
            Check(byGold, byName, byLevelGold, model);

            // Kept with every write after the load, and kept unique from the first write on.
            await Write(players, model, seed: 2);
            Check(byGold, byName, byLevelGold, model);
            var taken = model.Values.First();
            var clash = await Assert.ThrowsAsync<UniqueConstraintException>(() => players.InsertAsync(new Player(10_000, taken.Name, 1, 1)));
            Assert.Equal("by-name", clash.Index);
            Assert.Null(players.Get(10_000));
        }

        // Once more after a clean close, which kept the order of the name's index for this load to check.
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id, ByGold, ByName, ByLevelGold);
            Check(players.Index(ByGold), players.Index(ByName), players.Index(ByLevelGold), model);
        }
    }

    [Fact]
    public async Task GetCollection_WithAManyKeyDefinition_ListsEachRecordUnderEachOfItsTags()
    {
        var model = new Dictionary<int, Gear>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var gear = store.GetCollection<int, Gear>("gear", g => g.Id);
            for (var i = 0; i < 300; i++)
            {
                var item = new Gear(i % 120, i % 3 == 0 ? ["sword", $"t{i % 7}"] : [$"t{i % 5}"]);
                await gear.UpsertAsync(item);
                model[item.Id] = item;
            }

            await gear.DeleteAsync(7);
            model.Remove(7);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var gear = store.GetCollection<int, Gear>("gear", g => g.Id, ByTag);
            var byTag = gear.Index(ByTag);
            Assert.True(byTag.Ready.IsCompletedSuccessfully);
            foreach (var tag in new[] { "sword", "t0", "t3", "t6", "none" })
            {
                Assert.Equal(model.Values.Where(g => g.Tags.Contains(tag)).OrderBy(g => g.Id).Select(g => g.Id), byTag.Equal(tag).Select(g => g.Id));
            }
        }
    }

    [Fact]
    public async Task GetCollection_WithAUniqueDefinitionOnRecordsThatShareAKey_LoadsAndLeavesOnlyThatIndexUnbuilt()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.UpsertAsync(new Player(1, "twin", 1, 10));
            await players.UpsertAsync(new Player(2, "twin", 1, 20));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id, ByName, ByGold);
            var byName = players.Index(ByName);
            var failure = await Assert.ThrowsAsync<UniqueConstraintException>(() => byName.Ready);
            Assert.Equal("by-name", failure.Index);
            Assert.Throws<InvalidOperationException>(() => byName.Top(1));

            // The collection and the other index work; the name is free, and the unique index is not enforced.
            Assert.Equal(new[] { 2, 1 }, players.Index(ByGold).Top(2).Select(p => p.Id));
            await players.UpsertAsync(new Player(3, "twin", 1, 30));
            Assert.Equal(3L, players.Count);

            // Its handle is returned once; after that the definition is declared again, and fails the same way.
            var again = players.Index(ByName);
            Assert.NotSame(byName, again);
            await Assert.ThrowsAsync<UniqueConstraintException>(() => again.Ready);
        }
    }

    [Fact]
    public async Task GetCollection_WithADefinitionWhoseSelectorThrows_LoadsAndSaysWhyThatIndexWasNotBuilt()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.UpsertAsync(new Player(1, "a", 1, 10));
            await players.UpsertAsync(new Player(2, "b", 0, 20));
        }

        var broken = new IndexDefinition<int, Player>("by-ratio", p => 100 / p.Level);
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id, broken, ByGold);
            var failure = await Assert.ThrowsAsync<InvalidOperationException>(() => players.Index(broken).Ready);
            Assert.IsType<DivideByZeroException>(failure.InnerException);
            Assert.Contains("by-ratio", failure.Message, StringComparison.Ordinal);
            Assert.True(players.Index(ByGold).Ready.IsCompletedSuccessfully);
            await players.UpsertAsync(new Player(3, "c", 2, 5));
            Assert.Equal(new[] { 3, 1, 2 }, players.Index(ByGold).All().Select(p => p.Id));
        }
    }

    [Fact]
    public async Task GetCollection_OnACollectionLoadedAlready_DeclaresTheDefinitionsItLacksAndReturnsTheSameIndexes()
    {
        var model = new Dictionary<int, Player>();
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Write(players, model, seed: 3);

        var again = store.GetCollection<int, Player>("players", p => p.Id, ByGold, ByLevelGold);
        Assert.Same(players, again);
        var byGold = players.Index(ByGold);
        await byGold.Ready;
        Assert.Same(byGold, players.Index(ByGold));
        Assert.Same(byGold, (await store.GetCollectionAsync<int, Player>("players", p => p.Id, [ByGold])).Index(ByGold));
        await players.Index(ByLevelGold).Ready;
        Assert.Equal(model.Values.OrderBy(p => p.Gold).ThenBy(p => p.Id), byGold.All());

        // A name is one index: another definition of it, or a declaration by name, is refused.
        Assert.Throws<InvalidOperationException>(() => players.Index(new IndexDefinition<long, Player>("by-gold", p => p.Gold)));
        Assert.Throws<InvalidOperationException>(() => players.Index("by-gold", p => p.Gold));
        Assert.Throws<InvalidOperationException>(() => store.GetCollection<int, Player>("players", p => p.Id, new IndexDefinition<int, Player>("by-gold", p => p.Level)));
    }

    [Fact]
    public async Task GetCollectionAsync_WithDefinitions_CompletesWithTheIndexesBuilt()
    {
        var model = new Dictionary<int, Player>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            await Write(store.GetCollection<int, Player>("players", p => p.Id), model, seed: 4);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            using var cancelled = new CancellationTokenSource();
            await cancelled.CancelAsync();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => store.GetCollectionAsync<int, Player>("players", p => p.Id, [ByGold], cancelled.Token));

            var players = await store.GetCollectionAsync<int, Player>("players", p => p.Id, [ByGold, ByName, ByLevelGold]);
            Assert.True(players.Index(ByGold).Ready.IsCompletedSuccessfully);
            Check(players.Index(ByGold), players.Index(ByName), players.Index(ByLevelGold), model);
        }
    }

    [Fact]
    public async Task GetCollection_WithDefinitionsOfAnEncryptedStore_BuildsThemWithoutKeptOrders()
    {
        var options = new StoreOptions { EncryptionKey = Enumerable.Range(0, 32).Select(i => (byte)(i * 3)).ToArray() };
        var model = new Dictionary<int, Player>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            await Write(store.GetCollection<int, Player>("players", p => p.Id), model, seed: 5);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id, ByGold, ByName, ByLevelGold);
            Check(players.Index(ByGold), players.Index(ByName), players.Index(ByLevelGold), model);
        }

        Assert.Empty(Directory.EnumerateFiles(_dir.Path, "*.order", SearchOption.AllDirectories));
    }

    [Fact]
    public async Task GetCollection_WithDefinitionsOfACheckpointOpenedToRead_BuildsThemAndLeavesTheCheckpointAsItWas()
    {
        var model = new Dictionary<int, Player>();
        string checkpoint;
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            await Write(store.GetCollection<int, Player>("players", p => p.Id), model, seed: 6);
            checkpoint = (await store.CheckpointAsync("before-indexes")).Path;
        }

        var files = Directory.EnumerateFiles(checkpoint, "*", SearchOption.AllDirectories).Order().Select(f => (f, new FileInfo(f).Length)).ToList();
        await using (var saved = await StellarStore.OpenReadOnlyAsync(checkpoint))
        {
            var players = saved.GetCollection<int, Player>("players", p => p.Id, ByGold, ByName, ByLevelGold);
            Check(players.Index(ByGold), players.Index(ByName), players.Index(ByLevelGold), model);
        }

        // A store opened to read keeps no index order: the checkpoint's files are the ones it had.
        Assert.Equal(files, Directory.EnumerateFiles(checkpoint, "*", SearchOption.AllDirectories).Order().Select(f => (f, new FileInfo(f).Length)).ToList());
    }

    [Fact]
    public async Task GetCollection_WithDefinitionsItCannotTake_ThrowsBeforeLoadingAnything()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        Assert.Throws<ArgumentException>(() => store.GetCollection<int, Player>("players", p => p.Id, ByGold, new IndexDefinition<int, Player>("by-gold", p => p.Level)));
        Assert.Throws<ArgumentException>(() => store.GetCollection<int, Player>("players", p => p.Id, ByGold, null!));
        Assert.Throws<ArgumentException>(() => store.GetCollection<Unordered, Player>("players", p => new Unordered(p.Id), ByGold));
        Assert.Throws<ArgumentException>(() => new IndexDefinition<Unordered, Player>("by-nothing", p => new Unordered(p.Id)));
        Assert.Throws<ArgumentException>(() => new IndexDefinition<long, Player>(" ", p => p.Gold));
        Assert.Empty(store.CollectionNames);
    }

    /// <summary>Upserts, overwrites and deletes, some records large enough to be kept on disk; <paramref name="model"/> follows.</summary>
    private static async Task Write(Collection<int, Player> players, Dictionary<int, Player> model, int seed)
    {
        var random = new Random(seed);
        for (var step = 0; step < 400; step++)
        {
            var id = random.Next(150);
            if (random.Next(6) == 0)
            {
                if (model.Remove(id))
                {
                    Assert.True(await players.DeleteAsync(id));
                }

                continue;
            }

            // Names stay unique: each id has its own, with a tail past the large-value threshold now and then.
            var name = $"n{id:D3}-{seed}" + (random.Next(8) == 0 ? new string('x', 2_000) : "");
            var player = new Player(id, name, random.Next(4), random.Next(40));
            await players.UpsertAsync(player);
            model[id] = player;
        }
    }

    private static void Check(CollectionIndex<long, int, Player> byGold, CollectionIndex<string, int, Player> byName, CollectionIndex<(int, long), int, Player> byLevelGold, Dictionary<int, Player> model)
    {
        Assert.Equal(model.Values.OrderBy(p => p.Gold).ThenBy(p => p.Id), byGold.All());
        Assert.Equal(model.Values.Where(p => p.Gold is >= 10 and <= 20).OrderBy(p => p.Gold).ThenBy(p => p.Id), byGold.Range(10, 20));
        Assert.Equal(model.Values.OrderByDescending(p => p.Gold).ThenByDescending(p => p.Id).Take(7), byGold.Top(7));
        Assert.Equal(model.Values.OrderBy(p => p.Name, StringComparer.Ordinal), byName.All());
        Assert.Equal(model.Values.OrderBy(p => p.Level).ThenBy(p => p.Gold).ThenBy(p => p.Id), byLevelGold.All());
    }

    /// <summary>A key without an order of its own.</summary>
    private sealed record Unordered(int Id);
}
