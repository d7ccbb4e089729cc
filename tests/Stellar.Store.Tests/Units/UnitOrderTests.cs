using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Units;

/// <summary>
/// A caller that does not await gets the order it wrote in, across units and a collection's own writes: what a game
/// tick that fires its writes and moves on relies on.
/// </summary>
public sealed class UnitOrderTests : IDisposable
{
    private const int Tries = 200;

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task UpsertAsync_MadeAfterAUnitNotAwaited_WinsOverTheUnitsWriteOfTheSameKey()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        for (var i = 0; i < Tries; i++)
        {
            var unit = store.WriteAsync(tx =>
            {
                tx.In(a).Upsert(new Account(i, 1));
                tx.In(b).Upsert(new Account(i, 1));
            });
            var after = a.UpsertAsync(new Account(i, 2));
            var deleteAfter = b.DeleteAsync(i);
            await Task.WhenAll(unit, after, deleteAfter);
        }

        for (var i = 0; i < Tries; i++)
        {
            Assert.Equal(2, a.Get(i)!.Gold);
            Assert.False(b.TryGet(i, out _));
        }
    }

    [Fact]
    public async Task WriteAsync_UnitMadeAfterAWriteNotAwaited_IsCheckedAgainstThatWrite()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        for (var i = 0; i < Tries; i++)
        {
            // The insert waits behind the first unit; the second updates the key the insert makes: only in this order
            // does the update find it.
            var first = store.WriteAsync(tx =>
            {
                tx.In(a).Upsert(new Account(-1, i));
                tx.In(b).Upsert(new Account(-1, i));
            });
            var insert = a.InsertAsync(new Account(i, 1));
            var second = store.WriteAsync(tx =>
            {
                tx.In(a).Update(new Account(i, 3));
                tx.In(b).Insert(new Account(i, 3));
            });
            await Task.WhenAll(first, insert, second);
        }

        Assert.All(Enumerable.Range(0, Tries), i => Assert.Equal(3, a.Get(i)!.Gold));
    }

    [Fact]
    public async Task FlushAsync_AfterUnitsNotAwaited_MakesThemDurableInBufferedMode()
    {
        var live = Path.Combine(_dir.Path, "store");
        var copy = Path.Combine(_dir.Path, "copy");
        await using (var store = await StellarStore.OpenAsync(live, new StoreOptions { Durability = Durability.Buffered }))
        {
            var a = store.GetCollection<int, Account>("a", x => x.Id);
            var b = store.GetCollection<int, Account>("b", x => x.Id);
            var units = Enumerable.Range(0, 20).Select(i => store.WriteAsync(tx =>
            {
                tx.In(a).Insert(new Account(i, 1));
                tx.In(b).Insert(new Account(i, 1));
            })).ToList();
            await store.FlushAsync();

            // What the flush made durable is what a copy of the open store's files holds.
            Directory.CreateDirectory(copy);
            // The manifest and the shards; not the lock, which belongs to the open store.
            foreach (var file in Directory.GetFiles(live).Where(f => Path.GetFileName(f) == "MANIFEST" || f.EndsWith(".shard", StringComparison.Ordinal)))
            {
                File.Copy(file, Path.Combine(copy, Path.GetFileName(file)));
            }

            await Task.WhenAll(units);
        }

        await using var reopened = await StellarStore.OpenAsync(copy);
        Assert.Equal(20, reopened.GetCollection<int, Account>("a", x => x.Id).Count);
        Assert.Equal(20, reopened.GetCollection<int, Account>("b", x => x.Id).Count);
    }

    [Fact]
    public async Task DisposeAsync_WithWritesWaitingBehindUnits_StoresThemAllBeforeClosing()
    {
        var writes = new List<Task>();
        var store = await StellarStore.OpenAsync(_dir.Path);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        for (var i = 0; i < Tries; i++)
        {
            writes.Add(store.WriteAsync(tx =>
            {
                tx.In(a).Upsert(new Account(i, 1));
                tx.In(b).Upsert(new Account(i, 1));
            }));
            writes.Add(a.UpsertAsync(new Account(i, 2)));
        }

        // Disposed at once: the plain writes that wait behind units still go in, after them, and then the close.
        await store.DisposeAsync();
        await Task.WhenAll(writes);

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        var reopenedA = reopened.GetCollection<int, Account>("a", x => x.Id);
        var reopenedB = reopened.GetCollection<int, Account>("b", x => x.Id);
        Assert.All(Enumerable.Range(0, Tries), i => Assert.Equal(2, reopenedA.Get(i)!.Gold));
        Assert.Equal(Tries, reopenedB.Count);
    }
}
