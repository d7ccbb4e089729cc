using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// Unique indexes: a write that would give two records one index key is rejected before anything is stored, with its
/// whole batch or cross-collection write, against stored records and against the writes staged before it.
/// </summary>
public sealed class UniqueIndexTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Writes_ThatWouldShareAUniqueKey_AreRejectedWholeAndStoreNothing()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byName = players.Index("by-name", p => p.Name, unique: true);
        await byName.Ready;
        await players.InsertAsync(new Player(1, "ann", 1, 0));
        await players.InsertAsync(new Player(2, "bob", 1, 0));

        var single = await Assert.ThrowsAsync<UniqueConstraintException>(() => players.InsertAsync(new Player(3, "ann", 1, 0)));
        Assert.Equal(("players", "by-name", "ann", 3, 1), (single.Collection, single.Index, (string)single.IndexKey!, (int)single.Key, (int)single.Holder));
        await Assert.ThrowsAsync<UniqueConstraintException>(() => players.UpdateAsync(new Player(2, "ann", 1, 0)));

        // A batch whose second write breaks the index stores nothing, not even its first.
        await Assert.ThrowsAsync<UniqueConstraintException>(() => players.WriteAsync(b =>
        {
            b.Insert(new Player(4, "cat", 1, 0));
            b.Upsert(new Player(5, "bob", 1, 0));
        }));
        Assert.Null(players.Get(4));

        // Two writes of one batch that want the same new key.
        await Assert.ThrowsAsync<UniqueConstraintException>(() => players.WriteAsync(b =>
        {
            b.Insert(new Player(6, "dan", 1, 0));
            b.Insert(new Player(7, "dan", 1, 0));
        }));
        Assert.Null(players.Get(6));

        // A cross-collection write is rejected whole.
        var ledger = store.GetCollection<int, Account>("ledger", a => a.Id);
        await Assert.ThrowsAsync<UniqueConstraintException>(() => store.WriteAsync(tx =>
        {
            tx.In(ledger).Insert(new Account(1, 10));
            tx.In(players).Insert(new Player(8, "bob", 1, 0));
        }));
        Assert.Null(ledger.Get(1));

        Assert.Equal(new[] { "ann", "bob" }, byName.All().Select(p => p.Name));
        Assert.Equal(2, players.Count);
    }

    /// <summary>
    /// A key type whose order holds two keys equal that its equality does not (a class without <c>Equals</c>, ordered
    /// case-insensitively): the index's order decides what is one key, for the writes staged together as for those
    /// stored before.
    /// </summary>
    [Fact]
    public async Task Writes_WhoseKeysTheOrderHoldsEqual_AreRejectedLikeEqualKeys()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byHandle = players.Index("by-handle", p => new Handle(p.Name), unique: true);
        await byHandle.Ready;

        await Assert.ThrowsAsync<UniqueConstraintException>(() => players.WriteAsync(b =>
        {
            b.Insert(new Player(1, "Ann", 1, 0));
            b.Insert(new Player(2, "ann", 1, 0));
        }));
        Assert.Equal(0, players.Count);

        await players.InsertAsync(new Player(1, "Ann", 1, 0));
        await Assert.ThrowsAsync<UniqueConstraintException>(() => players.InsertAsync(new Player(2, "ANN", 1, 0)));
        Assert.Equal(new[] { 1 }, byHandle.Equal(new Handle("aNN")).Select(p => p.Id));
    }

    [Fact]
    public async Task Writes_ThatGiveUpAKeyBeforeAnotherTakesIt_AreAccepted()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byName = players.Index("by-name", p => p.Name, unique: true);
        await byName.Ready;
        await players.WriteAsync(b =>
        {
            b.Insert(new Player(1, "ann", 1, 0));
            b.Insert(new Player(2, "bob", 1, 0));
        });

        // A swap in one batch, through a third name; a record keeping its own key; a delete that frees one.
        await players.WriteAsync(b =>
        {
            b.Update(new Player(1, "tmp", 1, 0));
            b.Update(new Player(2, "ann", 2, 0));
            b.Update(new Player(1, "bob", 3, 0));
        });
        await players.UpdateAsync(new Player(2, "ann", 9, 0));
        await players.DeleteAsync(1);
        await players.InsertAsync(new Player(3, "bob", 1, 0));

        // Separate writes in one commit group: the second takes the key the first gave up.
        await Task.WhenAll(players.UpdateAsync(new Player(2, "eve", 9, 0)), players.InsertAsync(new Player(4, "ann", 1, 0)));

        Assert.Equal(new[] { (4, "ann"), (3, "bob"), (2, "eve") }, byName.All().Select(p => (p.Id, p.Name)));
    }

    [Fact]
    public async Task Index_DeclaredUniqueOnRecordsThatShareAKey_FailsReadyAndIsNotKept()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.WriteAsync(b =>
        {
            b.Insert(new Player(1, "ann", 1, 0));
            b.Insert(new Player(2, "ann", 2, 0));
        });

        var byName = players.Index("by-name", p => p.Name, unique: true);
        var failure = await Assert.ThrowsAsync<UniqueConstraintException>(() => byName.Ready);
        Assert.Equal("ann", failure.IndexKey);

        // Not kept: writes that would break it are accepted, and the name is free again.
        await players.InsertAsync(new Player(3, "ann", 1, 0));
        var byLevel = players.Index("by-name", p => p.Level, unique: true);
        await Assert.ThrowsAsync<UniqueConstraintException>(() => byLevel.Ready);
        var byId = players.Index("by-name", p => p.Id, unique: true);
        await byId.Ready;
        Assert.Equal(3, byId.All().Count());
    }

    [Fact]
    public async Task UnitsOfOneRound_ThatWantTheSameUniqueKey_CommitTheFirstAndRejectTheSecond()
    {
        var storage = new Units.GatedStorage(_dir.Path);
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions());
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var ledger = store.GetCollection<int, Account>("ledger", a => a.Id);
        var byName = players.Index("by-name", p => p.Name, unique: true);
        await byName.Ready;
        await store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(50, "zed", 1, 0));
            tx.In(ledger).Insert(new Account(50, 0));
        });

        // A round in flight, stalled in its write: the next units queue behind it and form one round.
        storage.Shut();
        var first = store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(60, "yan", 1, 0));
            tx.In(ledger).Insert(new Account(60, 0));
        });
        while (storage.Stalled == 0)
        {
            await Task.Delay(1);
        }

        var earlier = store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(1, "ann", 1, 0));
            tx.In(ledger).Insert(new Account(1, 1));
        });
        var later = store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(2, "ann", 1, 0));
            tx.In(ledger).Insert(new Account(2, 1));
        });
        storage.Open();

        await first;
        await earlier;
        await Assert.ThrowsAsync<UniqueConstraintException>(() => later);
        Assert.Null(ledger.Get(2));
        Assert.Equal(new[] { 1 }, byName.Equal("ann").Select(p => p.Id));
    }

    [Fact]
    public async Task Unit_ThatWantsAUniqueKeyOnlyAnEarlierUnitOfItsRoundWanted_CommitsWhenThatUnitIsRejectedElsewhere()
    {
        var storage = new Units.GatedStorage(_dir.Path);
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions());
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var ledger = store.GetCollection<int, Account>("ledger", a => a.Id);
        var byName = players.Index("by-name", p => p.Name, unique: true);
        await byName.Ready;
        await ledger.InsertAsync(new Account(5, 0));
        await store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(50, "zed", 1, 0));
            tx.In(ledger).Insert(new Account(50, 0));
        });

        storage.Shut();
        var first = store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(60, "yan", 1, 0));
            tx.In(ledger).Insert(new Account(60, 0));
        });
        while (storage.Stalled == 0)
        {
            await Task.Delay(1);
        }

        // The earlier unit takes "ann" in players but is rejected in the ledger (account 5 exists): it stores nothing,
        // so the later unit's "ann" breaks nothing, in whichever order the two are checked.
        var rejected = store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(1, "ann", 1, 0));
            tx.In(ledger).Insert(new Account(5, 1));
        });
        var later = store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(2, "ann", 1, 0));
            tx.In(ledger).Insert(new Account(2, 1));
        });
        storage.Open();

        await first;
        await Assert.ThrowsAsync<DuplicateKeyException>(() => rejected);
        await later;
        Assert.Equal(new[] { 2 }, byName.Equal("ann").Select(p => p.Id));
        Assert.Null(players.Get(1));
    }

    /// <summary>A player's handle, ordered case-insensitively; its equality is the reference's (no <c>Equals</c>).</summary>
    private sealed class Handle(string text) : IComparable<Handle>
    {
        public string Text { get; } = text;

        public int CompareTo(Handle? other) => StringComparer.OrdinalIgnoreCase.Compare(Text, other?.Text);
    }
}
