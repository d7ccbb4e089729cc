using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Units;

/// <summary>Writes across collections: all or none, visible together, kept whole across a reopen.</summary>
public sealed class CrossCollectionWriteTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(Durability.Buffered)]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Fsync)]
    public async Task WriteAsync_AcrossThreeCollections_EveryWriteIsVisibleAndSurvivesAReopen(Durability durability)
    {
        var options = new StoreOptions { Durability = durability };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Account>("players", a => a.Id);
            var items = store.GetCollection<string, Player>("items", p => p.Name);
            var ledger = store.GetCollection<int, Account>("ledger", a => a.Id);
            await items.InsertAsync(new Player(1, "sword", 1, 0));
            await store.WriteAsync(tx =>
            {
                tx.In(players).Insert(new Account(1, 100));
                tx.In(items).Delete("sword");
                tx.In(ledger).Insert(new Account(7, -100));
            });

            Assert.Equal(100, players.Get(1)!.Gold);
            Assert.False(items.TryGet("sword", out _));
            Assert.Equal(-100, ledger.Get(7)!.Gold);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Account>("players", a => a.Id);
            var items = store.GetCollection<string, Player>("items", p => p.Name);
            var ledger = store.GetCollection<int, Account>("ledger", a => a.Id);
            Assert.Equal(100, players.Get(1)!.Gold);
            Assert.False(items.TryGet("sword", out _));
            Assert.Equal(-100, ledger.Get(7)!.Gold);
        }
    }

    [Fact]
    public async Task WriteAsync_WhenAWriteInOneCollectionIsRejected_NothingIsStoredInAny()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Account>("players", a => a.Id);
            var ledger = store.GetCollection<int, Account>("ledger", a => a.Id);
            await ledger.InsertAsync(new Account(7, 5));

            await Assert.ThrowsAsync<DuplicateKeyException>(() => store.WriteAsync(tx =>
            {
                tx.In(players).Insert(new Account(1, 100));
                tx.In(ledger).Insert(new Account(7, -100));
            }));
            await Assert.ThrowsAsync<KeyNotFoundException>(() => store.WriteAsync(tx =>
            {
                tx.In(players).Insert(new Account(2, 100));
                tx.In(ledger).Update(new Account(8, -100));
            }));

            Assert.Equal(0, players.Count);
            Assert.Equal(5, ledger.Get(7)!.Gold);

            // The collections go on as before: the same keys can be written by the next unit.
            await store.WriteAsync(tx =>
            {
                tx.In(players).Insert(new Account(1, 100));
                tx.In(ledger).Update(new Account(7, -100));
            });
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Account>("players", a => a.Id);
            var ledger = store.GetCollection<int, Account>("ledger", a => a.Id);
            Assert.Equal(1, players.Count);
            Assert.Equal(-100, ledger.Get(7)!.Gold);
        }
    }

    [Fact]
    public async Task WriteAsync_ConcurrentUnitsWhereSomeAreRejected_TheOthersCommitAndTheRejectedLeaveNothing()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        await b.WriteAsync(batch =>
        {
            for (var i = 0; i < 200; i += 2)
            {
                batch.Insert(new Account(i, 1));
            }
        });

        // Units with an even id collide with b's keys and are rejected; odd ones commit, in the same rounds.
        var units = Enumerable.Range(0, 200).Select(i => store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(i, 2));
            tx.In(b).Insert(new Account(i, 2));
        })).ToList();
        var outcomes = await Task.WhenAll(units.Select(async t =>
        {
            try
            {
                await t;
                return true;
            }
            catch (DuplicateKeyException)
            {
                return false;
            }
        }));

        for (var i = 0; i < 200; i++)
        {
            Assert.Equal(i % 2 == 1, outcomes[i]);
            Assert.Equal(i % 2 == 1, a.TryGet(i, out _));
            Assert.Equal(i % 2 == 1 ? 2 : 1, b.Get(i)!.Gold);
        }
    }

    [Fact]
    public async Task WriteAsync_ToOneCollection_IsThatCollectionsAtomicBatch()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        await store.WriteAsync(tx => tx.In(a).Insert(new Account(1, 1)).Insert(new Account(2, 2)));
        await Assert.ThrowsAsync<DuplicateKeyException>(() => store.WriteAsync(tx => tx.In(a).Insert(new Account(3, 3)).Insert(new Account(1, 1))));
        Assert.Equal(2, a.Count);
    }

    [Fact]
    public async Task WriteAsync_WithACollectionOfAnotherStore_IsRefusedBeforeAnythingIsWritten()
    {
        using var other = new TempDirectory();
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        await using var second = await StellarStore.OpenAsync(other.Path);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var foreign = second.GetCollection<int, Account>("a", x => x.Id);
        await Assert.ThrowsAsync<ArgumentException>(() => store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 1));
            tx.In(foreign).Insert(new Account(1, 1));
        }));
        Assert.Equal(0, a.Count);
    }
}
