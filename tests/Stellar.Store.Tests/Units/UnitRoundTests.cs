using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Units;

/// <summary>How the units of one round are checked against each other, and parts that store nothing.</summary>
public sealed class UnitRoundTests : IDisposable
{
    private static readonly TimeSpan Hang = TimeSpan.FromMinutes(1);
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task WriteAsync_WhenOneCollectionsPartStoresNothing_CommitsTheUnitAndTheStoreGoesOn()
    {
        var store = await StellarStore.OpenAsync(_dir.Path);
        try
        {
            var a = store.GetCollection<int, Account>("a", x => x.Id);
            var b = store.GetCollection<int, Account>("b", x => x.Id);

            // Deleting a missing key changes nothing, so b's part holds no record at all.
            await store.WriteAsync(tx =>
            {
                tx.In(a).Insert(new Account(1, 10));
                tx.In(b).Delete(99);
            }).WaitAsync(Hang);
            await store.WriteAsync(tx =>
            {
                tx.In(a).Insert(new Account(2, 20));
                tx.In(b).Insert(new Account(2, 20));
            }).WaitAsync(Hang);
            await b.InsertAsync(new Account(3, 30)).WaitAsync(Hang);

            Assert.Equal(10, a.Get(1)!.Gold);
            Assert.Equal(2, b.Count);
        }
        finally
        {
            // Bounded: a round that never ends would hold the dispose forever.
            await store.DisposeAsync().AsTask().WaitAsync(Hang);
        }

        await using (var reopened = await StellarStore.OpenAsync(_dir.Path))
        {
            var a = reopened.GetCollection<int, Account>("a", x => x.Id);
            var b = reopened.GetCollection<int, Account>("b", x => x.Id);
            Assert.Equal(new[] { 1, 2 }, a.Query().Select(x => x.Id).Order());
            Assert.Equal(new[] { 2, 3 }, b.Query().Select(x => x.Id).Order());
        }
    }

    [Fact]
    public async Task WriteAsync_WhenAUnitConflictsOnlyWithAnEarlierUnitOfItsRoundThatIsRejected_CommitsIt()
    {
        var storage = new GatedStorage(_dir.Path);
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions());
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        var c = store.GetCollection<int, Account>("c", x => x.Id);
        await b.InsertAsync(new Account(5, 0));
        await store.WriteAsync(tx =>
        {
            tx.In(b).Insert(new Account(6, 0));
            tx.In(c).Insert(new Account(6, 0));
        });

        // A round in flight, stalled in its write: the next two units queue behind it and form one round.
        var first = await StallARoundAsync(store, storage, b, c);

        // The earlier unit inserts key 1 in a, and is rejected in b (key 5 exists); the later one inserts key 1 in a
        // too. In no order of the two is the later one a duplicate: the earlier one never stores its key 1.
        var rejected = store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 1));
            tx.In(b).Insert(new Account(5, 1));
        });
        var later = store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 2));
            tx.In(c).Insert(new Account(7, 2));
        });
        storage.Open();

        await first.WaitAsync(Hang);
        await Assert.ThrowsAsync<DuplicateKeyException>(() => rejected.WaitAsync(Hang));
        await later.WaitAsync(Hang);
        Assert.Equal(2, a.Get(1)!.Gold);
        Assert.Equal(2, c.Get(7)!.Gold);
        Assert.Equal(0, b.Get(5)!.Gold);
    }

    [Fact]
    public async Task WriteAsync_WhenAUnitConflictsWithARejectedOneAndALaterUnitUpdatesTheSameRecord_TheLaterUnitWins()
    {
        var storage = new GatedStorage(_dir.Path);
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions());
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        var c = store.GetCollection<int, Account>("c", x => x.Id);
        await b.InsertAsync(new Account(5, 0));
        await store.WriteAsync(tx =>
        {
            tx.In(b).Insert(new Account(6, 0));
            tx.In(c).Insert(new Account(6, 0));
        });

        // A round in flight, stalled in its write: the next three units queue behind it and form one round.
        var first = await StallARoundAsync(store, storage, b, c);

        // The first is rejected in b (key 5 exists); the second conflicts with it in a only (both insert key 1) and sets
        // c's record 6 to 1; the third, issued last, sets it to 2. Issued in this order, the third's value is the one kept.
        var rejected = store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 1));
            tx.In(b).Insert(new Account(5, 1));
        });
        var earlier = store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 2));
            tx.In(c).Update(new Account(6, 1));
        });
        var later = store.WriteAsync(tx =>
        {
            tx.In(b).Insert(new Account(7, 2));
            tx.In(c).Update(new Account(6, 2));
        });
        storage.Open();

        await first.WaitAsync(Hang);
        await Assert.ThrowsAsync<DuplicateKeyException>(() => rejected.WaitAsync(Hang));
        await earlier.WaitAsync(Hang);
        await later.WaitAsync(Hang);
        Assert.Equal(2, c.Get(6)!.Gold);
    }

    [Fact]
    public async Task WriteAsync_WhenTwoUnitsOfARoundInsertTheSameKey_CommitsTheFirstAndRejectsTheSecond()
    {
        var storage = new GatedStorage(_dir.Path);
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions());
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        await store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(50, 0));
            tx.In(b).Insert(new Account(50, 0));
        });

        var first = await StallARoundAsync(store, storage, a, b);

        var earlier = store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 1));
            tx.In(b).Insert(new Account(1, 1));
        });
        var duplicate = store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 2));
            tx.In(b).Insert(new Account(2, 2));
        });
        storage.Open();

        await first.WaitAsync(Hang);
        await earlier.WaitAsync(Hang);
        await Assert.ThrowsAsync<DuplicateKeyException>(() => duplicate.WaitAsync(Hang));
        Assert.Equal(1, a.Get(1)!.Gold);
        Assert.False(b.TryGet(2, out _));
    }

    /// <summary>
    /// Shuts <paramref name="storage"/> and starts a round of one unit in <paramref name="x"/> and <paramref name="y"/>
    /// (key 100 in each), which stalls in its write: units written next queue behind it and form one round once the
    /// storage opens. Returns the stalled round's task.
    /// </summary>
    private static async Task<Task> StallARoundAsync(StellarStore store, GatedStorage storage, Collection<int, Account> x, Collection<int, Account> y)
    {
        storage.Shut();
        var round = store.WriteAsync(tx =>
        {
            tx.In(x).Insert(new Account(100, 0));
            tx.In(y).Insert(new Account(100, 0));
        });
        while (storage.Stalled == 0)
        {
            await Task.Delay(1);
        }

        return round;
    }
}
