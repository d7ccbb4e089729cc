using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>Declaring, building, failing and dropping an index, and the errors a user meets.</summary>
public sealed class IndexLifecycleTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Index_DeclaredOnStoredRecords_HoldsThemAndTheWritesQueuedBeforeAndAfterIt()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.WriteAsync(b =>
        {
            for (var i = 0; i < 100; i++)
            {
                b.Insert(new Player(i, $"p{i}", i % 7, i * 10));
            }
        });

        var before = players.UpsertAsync(new Player(100, "late", 1, 5));
        var byGold = players.Index("by-gold", p => p.Gold);
        var after = players.DeleteAsync(0);
        await Task.WhenAll(before, after, byGold.Ready);

        Assert.Equal(new[] { 100, 1, 2 }, byGold.Bottom(3).Select(p => p.Id));
        Assert.Equal(new[] { 99, 98 }, byGold.Top(2).Select(p => p.Id));
        Assert.Equal(new[] { 50 }, byGold.Equal(500).Select(p => p.Id));
        Assert.Equal(100, byGold.All().Count());
    }

    /// <summary>
    /// A build leaves the writer's table of where each record's entry lies to be filled after it, on the pool, so the
    /// writes that come the moment it answers must find the entries the build made, not add a second one beside them.
    /// </summary>
    [Fact]
    public async Task Indexes_WrittenTheMomentTheyAnswer_MoveAndDeleteTheRecordsTheirBuildsHeld()
    {
        const int Count = 50_000;
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.WriteAsync(b =>
        {
            for (var i = 0; i < Count; i++)
            {
                b.Insert(new Player(i, $"p{i:D6}", i % 7, i));
            }
        });

        var byGold = players.Index("by-gold", p => p.Gold);
        var byName = players.Index("by-name", p => p.Name);
        await Task.WhenAll(byGold.Ready, byName.Ready);
        var moves = players.WriteAsync(b =>
        {
            for (var i = 0; i < Count; i += 97)
            {
                b.Upsert(new Player(i, $"moved{i:D6}", 0, Count + i));
            }

            b.Delete(1);
        });
        await moves;

        var model = Enumerable.Range(0, Count).Where(i => i != 1)
            .Select(i => i % 97 == 0 ? new Player(i, $"moved{i:D6}", 0, Count + i) : new Player(i, $"p{i:D6}", i % 7, i))
            .ToList();
        Assert.Equal(model.OrderBy(p => p.Gold).ThenBy(p => p.Id), byGold.All());
        Assert.Equal(model.OrderBy(p => p.Name, StringComparer.Ordinal).ThenBy(p => p.Id), byName.All());
    }

    [Fact]
    public async Task SnapshotIndex_WhenTheSnapshotIsOlderThanTheIndex_ThrowsAndANewSnapshotAnswers()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "a", 1, 1));
        using var old = players.Snapshot();
        await players.UpdateAsync(new Player(1, "a", 2, 1));
        var byLevel = players.Index("by-level", p => p.Level);
        await byLevel.Ready;

        var error = Assert.Throws<InvalidOperationException>(() => old.Index(byLevel));
        Assert.Contains("take a new snapshot", error.Message);
        using var fresh = players.Snapshot();
        Assert.Single(fresh.Index(byLevel).All());
    }

    [Fact]
    public async Task Index_OnKeysOrderedOnlyAgainstAnotherType_IsRefusedWhenDeclared_AndOneOrderedThroughItsBaseIsKept()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "a", 3, 10));
        await players.InsertAsync(new Player(2, "b", 1, 20));

        // Comparable with an int, not with itself: no order of its own, refused at once, naming the type.
        var error = Assert.Throws<ArgumentException>(() => players.Index("by-odd", p => new ComparableWithIntsOnly(p.Level)));
        Assert.Contains(nameof(ComparableWithIntsOnly), error.Message);
        Assert.Contains("has no order", error.Message);

        // Ordered through its base type's comparison, which orders it too: kept, in that order.
        var byRank = players.Index("by-rank", p => new Rank(p.Level));
        await byRank.Ready;
        Assert.Equal([2, 1], byRank.All().Select(p => p.Id));
    }

    [Fact]
    public async Task Index_WhenTheNameIsTakenOrTheKeysHaveNoOrder_ThrowsAClearError()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        await players.Index("by-level", p => p.Level).Ready;

        Assert.Contains("already has an index named 'by-level'", Assert.Throws<InvalidOperationException>(() => players.Index("by-level", p => p.Gold)).Message);
        Assert.Contains("has no order", Assert.Throws<ArgumentException>(() => chunks.Index("by-voxels", c => c.Voxels)).Message);
        Assert.Throws<ArgumentException>(() => players.Index(" ", p => p.Level));

        var others = store.GetCollection<int, Player>("others", p => p.Id);
        var byGold = players.Index("by-gold", p => p.Gold);
        await byGold.Ready;
        using var snapshot = others.Snapshot();
        Assert.Contains("belongs to collection 'players'", Assert.Throws<ArgumentException>(() => snapshot.Index(byGold)).Message);
    }

    [Fact]
    public async Task Index_WhenItsSelectorThrows_FailsAloneWhileWritesGoOnAndSaysHowToDeclareItAgainInTheSameStore()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "a", 1, 1));
        var byName = players.Index("by-name", p => p.Name.Length > 5 ? throw new FormatException("too long") : p.Name);
        await byName.Ready;

        // A write the selector throws for is stored; the index stops being kept and says why.
        await players.InsertAsync(new Player(2, "abcdefgh", 1, 1));
        Assert.Equal("abcdefgh", players.Get(2)!.Name);
        var stopped = Assert.Throws<InvalidOperationException>(() => byName.All().ToList());
        Assert.IsType<FormatException>(stopped.InnerException);

        // It says how to recover, and that works in the same store: drop it and declare it again.
        Assert.Contains("DropIndexAsync", stopped.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("reopen", stopped.Message, StringComparison.OrdinalIgnoreCase);
        await players.DropIndexAsync(byName);
        var renamed = players.Index("by-name", p => p.Name);
        await renamed.Ready;
        Assert.Equal(new[] { 1, 2 }, renamed.All().Select(p => p.Id));

        // A selector that throws on a stored record fails the build: Ready faults, and the name is free again.
        var broken = players.Index("by-first", p => p.Name[3]);
        var failed = await Assert.ThrowsAsync<InvalidOperationException>(() => broken.Ready);
        Assert.DoesNotContain("reopen", failed.Message, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("DropIndexAsync", failed.Message, StringComparison.Ordinal);
        var fixedIndex = players.Index("by-first", p => p.Name[0]);
        await fixedIndex.Ready;
        Assert.Equal(new[] { 1, 2 }, fixedIndex.Equal('a').Select(p => p.Id));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Index_WhenARecordsBlockIsDamagedAfterOpen_FailsWithTheReadsErrorNotTheSelectors(bool unique)
    {
        // Values over the threshold stay on disk, so a build reads them from the shard.
        await using var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { LargeValueThreshold = 1_024 });
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        await chunks.UpsertAsync(new Chunk { Id = "chunk-1", Voxels = new byte[8_000] });
        await store.FlushAsync();

        var shard = Directory.GetFiles(_dir.Path, "*.shard").Single();
        FileDamage.FlipBit(shard, fromEnd: 100);

        // The selector never ran for that record: the build says what went wrong, and the name stays free.
        var bySize = chunks.Index("by-size", c => c.Voxels.Length, unique);
        var failure = await Assert.ThrowsAsync<CorruptBlockException>(() => bySize.Ready);
        Assert.Equal(shard, failure.Path);
        var byId = chunks.Index("by-size", c => c.Id);
        await Assert.ThrowsAsync<CorruptBlockException>(() => byId.Ready);
        var byFirstByte = chunks.IndexMany("by-first-byte", c => c.Voxels.Take(1));
        await Assert.ThrowsAsync<CorruptBlockException>(() => byFirstByte.Ready);
    }

    [Fact]
    public async Task DropIndex_RefusesNewReadsFreesTheNameAndReadsUnderWayFinish()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.WriteAsync(b =>
        {
            for (var i = 0; i < 10; i++)
            {
                b.Insert(new Player(i, $"p{i}", i, i));
            }
        });
        var byLevel = players.Index("by-level", p => p.Level);
        await byLevel.Ready;
        using var snapshot = players.Snapshot();
        var view = snapshot.Index(byLevel);

        await players.DropIndexAsync(byLevel);
        await players.DeleteAsync(3);

        Assert.Equal(10, view.All().Count());
        Assert.Contains("was dropped", Assert.Throws<InvalidOperationException>(() => byLevel.Top(1)).Message);
        await Assert.ThrowsAsync<ArgumentException>(() => players.DropIndexAsync(byLevel));
        var again = players.Index("by-level", p => -p.Level);
        await again.Ready;
        Assert.Equal(new[] { 9, 8 }, again.Bottom(2).Select(p => p.Id));
    }

    [Fact]
    public async Task Page_ThroughARangeOfTiedAndChangingKeys_ReturnsEachRecordOnceInOrderFromOneSnapshot()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var chunks = store.GetCollection<int, Player>("chunks", p => p.Id);
        await chunks.WriteAsync(b =>
        {
            for (var i = 0; i < 50; i++)
            {
                b.Insert(new Player(i, $"c{i}", i % 5, i));
            }
        });
        var byLevel = chunks.Index("by-level", p => p.Level);
        await byLevel.Ready;
        using var snapshot = chunks.Snapshot();
        var view = snapshot.Index(byLevel);

        // Pages of 7 over levels 1..3 while the records keep changing: the held snapshot's pages do not move.
        var seen = new List<int>();
        IndexContinuation<int, int>? next = null;
        var pages = 0;
        do
        {
            var page = view.Page(1, 3, 7, next);
            Assert.InRange(page.Items.Count, 1, 7);
            seen.AddRange(page.Items.Select(p => p.Id));
            next = page.Next;
            pages++;
            await chunks.UpsertAsync(new Player(pages, "moved", 4 - (pages % 5), 0));
        }
        while (next is not null);

        var expected = Enumerable.Range(0, 50).Where(i => i % 5 is >= 1 and <= 3).OrderBy(i => i % 5).ThenBy(i => i).ToList();
        Assert.Equal(expected, seen);
        Assert.Equal(5, pages);
        // A page that takes the rest exactly has no next page; one after the last record is empty.
        var whole = view.Page(1, 3, 30);
        Assert.Equal(expected, whole.Items.Select(p => p.Id));
        Assert.Null(whole.Next);
        Assert.Empty(view.Page(1, 3, 30, new IndexContinuation<int, int>(3, 48)).Items);
        var first = view.Page(1, 1, 2);
        Assert.Equal(new[] { 1, 6 }, first.Items.Select(p => p.Id));
        Assert.Equal(new IndexContinuation<int, int>(1, 6), first.Next);
    }

    [Fact]
    public async Task Index_WhenItsKeysComparisonThrows_FailsAloneWhileWritesGoOn()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        for (var id = 1; id <= 200; id++)
        {
            await players.InsertAsync(new Player(id, "p" + id, id, 1));
        }

        var byLevel = players.Index("by-level", p => new Touchy(p.Level));
        await byLevel.Ready;

        // The key's comparison throws for this level: the write is stored, the index stops being kept and says why.
        await players.UpsertAsync(new Player(7, "p7", Touchy.Refused, 1)).WaitAsync(TimeSpan.FromMinutes(1));
        Assert.Equal(Touchy.Refused, players.Get(7)!.Level);
        var stopped = Assert.Throws<InvalidOperationException>(() => byLevel.All().ToList());
        Assert.IsType<FormatException>(stopped.InnerException);

        // The collection goes on: later writes are stored and a reopen finds them all.
        await players.UpsertAsync(new Player(8, "p8", 3, 1)).WaitAsync(TimeSpan.FromMinutes(1));
        Assert.Equal(200, players.Count);
        Assert.DoesNotContain(store.GetCollectionHealth(), h => h.IsFaulted);
    }

    [Fact]
    public async Task UniqueIndex_WhenItsKeysComparisonThrows_RejectsTheWriteAndKeepsTheIndex()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        for (var id = 1; id <= 200; id++)
        {
            await players.InsertAsync(new Player(id, "p" + id, id, 1));
        }

        var byLevel = players.Index("by-level", p => new Touchy(p.Level), unique: true);
        await byLevel.Ready;

        // The uniqueness of a key that cannot be compared cannot be checked: the write is refused, nothing stored.
        var refused = await Assert.ThrowsAsync<ArgumentException>(() => players.UpsertAsync(new Player(7, "p7", Touchy.Refused, 1)).WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.IsType<FormatException>(refused.InnerException);
        Assert.Equal(7, players.Get(7)!.Level);

        // The index and the collection go on.
        await players.UpsertAsync(new Player(8, "p8", 1_000, 1)).WaitAsync(TimeSpan.FromMinutes(1));
        Assert.Equal(8, byLevel.Equal(new Touchy(1_000)).Single().Id);
        await Assert.ThrowsAsync<UniqueConstraintException>(() => players.UpsertAsync(new Player(9, "p9", 1_000, 1)));
        Assert.DoesNotContain(store.GetCollectionHealth(), h => h.IsFaulted);
    }

    /// <summary>
    /// A unique index that stopped being kept (here its comparison threw as it trimmed an ended entry) holds entries of
    /// the past: it gives no key until it is dropped, rather than check writes against them, which refused a name its
    /// holder had left and gave two records the name one had taken since.
    /// </summary>
    [Fact]
    public async Task UniqueIndex_WhenItStopsBeingKept_RefusesEveryKeyUntilDroppedInsteadOfCheckingStaleEntries()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byName = players.Index("by-name", p => new Flaky(p.Name), unique: true);
        await byName.Ready;
        await players.InsertAsync(new Player(1, "ann", 1, 0));
        await players.InsertAsync(new Player(2, "cat", 1, 0));

        // The entry of "ann" ends while a snapshot can read it, and is trimmed when the snapshot goes, with the comparison broken.
        var snapshot = players.Snapshot();
        await players.UpdateAsync(new Player(1, "bob", 1, 0));
        Flaky.Broken = true;
        try
        {
            snapshot.Dispose();
            for (var wait = 0; wait < 2_000 && Record.Exception(() => byName.All().ToList()) is null; wait++)
            {
                await Task.Delay(5);
            }
        }
        finally
        {
            Flaky.Broken = false;
        }

        await Assert.ThrowsAsync<ArgumentException>(() => players.UpdateAsync(new Player(1, "dan", 1, 0)));
        await Assert.ThrowsAsync<ArgumentException>(() => players.InsertAsync(new Player(3, "bob", 1, 0)));
        await players.DeleteAsync(2);
        Assert.Equal(new[] { (1, "bob") }, players.Query().Select(p => (p.Id, p.Name)));

        await players.DropIndexAsync(byName);
        await players.InsertAsync(new Player(3, "cat", 1, 0));
        var again = players.Index("by-name", p => new Flaky(p.Name), unique: true);
        await again.Ready;
        Assert.Equal(new[] { 1, 3 }, again.All().Select(p => p.Id));
        await Assert.ThrowsAsync<UniqueConstraintException>(() => players.InsertAsync(new Player(4, "bob", 1, 0)));
    }

    private sealed class ComparableWithIntsOnly(int value) : IComparable<int>
    {
        public int CompareTo(int other) => value.CompareTo(other);
    }

    private class RankBase(int value) : IComparable<RankBase>
    {
        public int Value => value;

        public int CompareTo(RankBase? other) => other is null ? 1 : Value.CompareTo(other.Value);
    }

    private sealed class Rank(int value) : RankBase(value);

    private sealed class Touchy(int value) : IComparable<Touchy>
    {
        public const int Refused = 13_000;

        public int Value => value;

        public int CompareTo(Touchy? other) => value == Refused || other?.Value == Refused
            ? throw new FormatException("this level cannot be compared")
            : other is null ? 1 : value.CompareTo(other.Value);
    }

    /// <summary>A name whose comparison throws while the test says it is broken.</summary>
    private sealed class Flaky(string text) : IComparable<Flaky>
    {
        public static volatile bool Broken;

        public string Text => text;

        public int CompareTo(Flaky? other) => Broken ? throw new FormatException("broken") : string.CompareOrdinal(text, other?.Text);
    }
}
