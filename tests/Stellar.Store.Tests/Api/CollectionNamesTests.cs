namespace Stellar.Store.Tests.Api;

/// <summary>The store lists its collections, loaded or not, without its own internal ones.</summary>
public sealed class CollectionNamesTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task CollectionNames_AfterCreatesAndAReopen_ListsEveryCollectionInCreationOrderAndNoInternalOne()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            Assert.Empty(store.CollectionNames);
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var items = store.GetCollection<int, Player>("items", p => p.Id);

            // A write across collections makes the store's own unit log, which is not the game's.
            await store.WriteAsync(tx =>
            {
                tx.In(players).Upsert(new Player(1, "a", 1, 1));
                tx.In(items).Upsert(new Player(2, "b", 1, 1));
            });
            Assert.Equal(["players", "items"], store.CollectionNames);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            // Listed before any is loaded.
            Assert.Equal(["players", "items"], store.CollectionNames);
            store.GetCollection<string, Player>("zones", p => p.Name);
            Assert.Equal(["players", "items", "zones"], store.CollectionNames);
        }
    }
}
