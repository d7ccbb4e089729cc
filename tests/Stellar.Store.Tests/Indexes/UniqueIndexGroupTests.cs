using Stellar.Store.Testing;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// Unique indexes under writes that share commit groups: many writes queued at once, in an order the test knows, each
/// checked against the test's own model of which names are held, as the writer checks it against the writes staged
/// before it; then the index against the records, and again after a reopen.
/// </summary>
public sealed class UniqueIndexGroupTests : IDisposable
{
    private static readonly string?[] Names = ["ann", "bob", "cat", "dan", null];
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task WritesQueuedTogether_ThatClaimFreeAndMoveUniqueKeys_HaveTheOutcomesOfTheModelAcrossCrashesAndReopens(int seed)
    {
        var random = new Random(seed);
        var memory = new MemoryStorage();
        var options = new StoreOptions { MaxShardBytes = 64 * 1024 };
        var definition = new IndexDefinition<string?, Player>("by-name", p => p.Name, unique: true);
        var model = new Dictionary<int, Player>();
        for (var life = 0; life < 4; life++)
        {
            var store = await StellarStore.OpenAsync(memory, options);
            var players = store.GetCollection<int, Player>("players", p => p.Id, definition);
            var byName = players.Index(definition);
            await byName.Ready;
            AssertAgrees(model, players, byName);
            for (var round = 0; round < 15; round++)
            {
                var writes = new List<(Task Task, Type? Expected)>();
                for (var i = 0; i < 12; i++)
                {
                    var batch = Enumerable.Range(0, random.Next(1, 4)).Select(_ => RandomWrite(random)).ToList();
                    var expected = Apply(model, batch);
                    var task = batch.Count == 1 && random.Next(2) == 0
                        ? Single(players, batch[0])
                        : players.WriteAsync(b =>
                        {
                            foreach (var (kind, player) in batch)
                            {
                                _ = kind switch
                                {
                                    'i' => b.Insert(player),
                                    'u' => b.Update(player),
                                    's' => b.Upsert(player),
                                    _ => b.Delete(player.Id),
                                };
                            }
                        });
                    writes.Add((task, expected));
                }

                foreach (var (task, expected) in writes)
                {
                    var thrown = await Record.ExceptionAsync(() => task);
                    Assert.Equal(expected, thrown?.GetType());
                }

                AssertAgrees(model, players, byName);
                if (round == 7)
                {
                    await players.CompactAsync();
                }
            }

            if (life % 2 == 0)
            {
                await store.DisposeAsync();
            }
            else
            {
                // A process crash keeps every byte written: every acknowledged write is there at the reopen.
                await Crash.AndAbandonAsync(memory, store, losesUnsyncedData: false);
            }
        }
    }

    /// <summary>
    /// A machine crash keeps a prefix of the writes that were not flushed, its last block torn: whatever prefix it keeps,
    /// no two records share a name in it, so the unique index declared with the load is built and agrees with the records.
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task UniqueIndex_DeclaredWithTheLoadAfterMachineCrashes_IsBuiltFromAPrefixWithoutSharedKeys(int seed)
    {
        var random = new Random(seed);
        var memory = new MemoryStorage();
        var definition = new IndexDefinition<string?, Player>("by-name", p => p.Name, unique: true);
        for (var life = 0; life < 6; life++)
        {
            var store = await StellarStore.OpenAsync(memory, new StoreOptions { MaxShardBytes = 64 * 1024 });
            var players = store.GetCollection<int, Player>("players", p => p.Id, definition);
            var byName = players.Index(definition);
            await byName.Ready;
            var records = players.Query().ToList();
            var named = records.Where(p => p.Name is not null).ToList();
            Assert.Equal(named.Count, named.Select(p => p.Name).Distinct().Count());
            Assert.Equal(records.OrderBy(p => p.Name, StringComparer.Ordinal).ThenBy(p => p.Id), byName.All());

            var writes = new List<Task>();
            for (var i = 0; i < 200; i++)
            {
                var batch = Enumerable.Range(0, random.Next(1, 4)).Select(_ => RandomWrite(random)).ToList();
                writes.Add(players.WriteAsync(b =>
                {
                    foreach (var (kind, player) in batch)
                    {
                        _ = kind switch
                        {
                            'i' => b.Insert(player),
                            'u' => b.Update(player),
                            's' => b.Upsert(player),
                            _ => b.Delete(player.Id),
                        };
                    }
                }));
                if (i % 50 == 49)
                {
                    await Task.WhenAll(writes.Select(w => w.ContinueWith(_ => { })));
                    if (random.Next(2) == 0)
                    {
                        await store.FlushAsync();
                    }
                }
            }

            await Task.WhenAll(writes.Select(w => w.ContinueWith(_ => { })));
            await Crash.AndAbandonAsync(memory, store, losesUnsyncedData: true, new Random(seed * 100 + life));
        }
    }

    /// <summary>
    /// A drop is queued behind the writes before it: those are still checked against the index, as it stands after the
    /// writes before them, so a write that takes a name an earlier write gave up is accepted.
    /// </summary>
    [Fact]
    public async Task WritesQueuedBeforeADrop_AreCheckedAgainstTheIndexAsTheWritesBeforeThemLeftIt()
    {
        var storage = new Units.GatedStorage(_dir.Path);
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions());
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byName = players.Index("by-name", p => p.Name, unique: true);
        await byName.Ready;
        await players.InsertAsync(new Player(1, "ann", 1, 0));

        // The write that gives up "ann" is in flight, stalled in its append, when the drop is asked for.
        storage.Shut();
        var givesUp = players.UpdateAsync(new Player(1, "bob", 1, 0));
        while (storage.Stalled == 0)
        {
            await Task.Delay(1);
        }

        var takes = players.InsertAsync(new Player(2, "ann", 1, 0));
        var clashes = players.InsertAsync(new Player(3, "bob", 1, 0));
        var drop = players.DropIndexAsync(byName);
        storage.Open();

        await givesUp;
        await takes;
        await Assert.ThrowsAsync<UniqueConstraintException>(() => clashes);
        await drop;
        Assert.Equal(new[] { (1, "bob"), (2, "ann") }, players.Query().OrderBy(p => p.Id).Select(p => (p.Id, p.Name)));
    }

    /// <summary>
    /// A unique index's selector that throws for one write of a batch rejects the batch whole, and what its earlier
    /// writes claimed is free again for the writes queued behind it; an index that is not unique, whose selector would
    /// throw for the same record, never sees it and goes on.
    /// </summary>
    [Fact]
    public async Task Batch_WhoseUniqueSelectorThrowsForOneWrite_IsRejectedWholeAndFreesWhatItClaimed()
    {
        const int Refused = 13;
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byName = players.Index("by-name", p => p.Level == Refused ? throw new FormatException("refused") : p.Name, unique: true);
        var byLevel = players.Index("by-level", p => p.Level == Refused ? throw new FormatException("refused") : p.Level);
        await Task.WhenAll(byName.Ready, byLevel.Ready);
        await players.InsertAsync(new Player(1, "ann", 1, 0));

        var rejected = players.WriteAsync(b =>
        {
            b.Update(new Player(1, "bob", 1, 0));
            b.Insert(new Player(2, "cat", 2, 0));
            b.Insert(new Player(3, "dan", Refused, 0));
        });
        var takesCat = players.InsertAsync(new Player(4, "cat", 4, 0));
        var clashesAnn = players.InsertAsync(new Player(5, "ann", 5, 0));

        var thrown = await Assert.ThrowsAsync<ArgumentException>(() => rejected);
        Assert.IsType<FormatException>(thrown.InnerException);
        await takesCat;
        await Assert.ThrowsAsync<UniqueConstraintException>(() => clashesAnn);
        Assert.Equal(new[] { (1, "ann"), (4, "cat") }, players.Query().OrderBy(p => p.Id).Select(p => (p.Id, p.Name)));
        Assert.Equal(new[] { 1, 4 }, byName.All().Select(p => p.Id));
        Assert.Equal(new[] { 1, 4 }, byLevel.All().Select(p => p.Id));
    }

    /// <summary>
    /// A unique index declared while writers move records between names: every write queued after the declaration is
    /// checked, the ones that race with the build too, so no two records share a name once it answers.
    /// </summary>
    [Fact]
    public async Task UniqueIndex_DeclaredWhileWritersWrite_ChecksEveryWriteQueuedAfterTheDeclaration()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        using var stop = new CancellationTokenSource();

        // Each record moves between names of its own: no two clash before the index is declared.
        var writers = Enumerable.Range(0, 2).Select(w => Task.Run(async () =>
        {
            var random = new Random(w);
            while (!stop.IsCancellationRequested)
            {
                var id = (w * 1000) + random.Next(100);
                await players.UpsertAsync(new Player(id, $"r{id}-{random.Next(5)}", 0, 0)).ContinueWith(_ => { });
            }
        })).ToList();

        for (var round = 0; round < 10; round++)
        {
            await Task.Delay(20);
            var byName = players.Index("by-name", p => p.Name, unique: true);

            // Queued after the declaration: each would give a record the name of another.
            var clashes = new List<Task>();
            using (var snapshot = players.Snapshot())
            {
                var records = snapshot.Query().ToList();
                foreach (var record in records.Take(30))
                {
                    clashes.Add(players.UpsertAsync(new Player(5000 + record.Id, record.Name, 0, 0)));
                }
            }

            await byName.Ready;
            foreach (var clash in clashes)
            {
                var thrown = await Record.ExceptionAsync(() => clash);
                Assert.True(thrown is null or UniqueConstraintException, thrown?.ToString());
            }

            using (var snapshot = players.Snapshot())
            {
                var records = snapshot.Query().ToList();
                Assert.Equal(records.Count, records.Select(p => p.Name).Distinct().Count());
                Assert.Equal(records.OrderBy(p => p.Name, StringComparer.Ordinal).Select(p => p.Id), snapshot.Index(byName).All().Select(p => p.Id));
            }

            await players.DropIndexAsync(byName);
            await players.WriteAsync(b =>
            {
                foreach (var id in Enumerable.Range(5000, 3000))
                {
                    b.Delete(id);
                }
            });
        }

        stop.Cancel();
        await Task.WhenAll(writers);
    }

    /// <summary>
    /// Two units of one round: the earlier frees a name and is rejected in another collection, the later takes the name.
    /// The earlier stores nothing, so the name is still held and the later is rejected, whatever order they are checked in.
    /// </summary>
    [Fact]
    public async Task Unit_ThatTakesANameAnEarlierUnitOfItsRoundFreed_IsRejectedWhenThatUnitIsRejectedElsewhere()
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
            tx.In(players).Insert(new Player(1, "ann", 1, 0));
            tx.In(ledger).Insert(new Account(1, 0));
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

        var frees = store.WriteAsync(tx =>
        {
            tx.In(players).Update(new Player(1, "bob", 1, 0));
            tx.In(ledger).Insert(new Account(5, 1));
        });
        var takes = store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(2, "ann", 1, 0));
            tx.In(ledger).Insert(new Account(2, 1));
        });
        storage.Open();

        await first;
        await Assert.ThrowsAsync<DuplicateKeyException>(() => frees);
        await Assert.ThrowsAsync<UniqueConstraintException>(() => takes);
        Assert.Equal(new[] { (1, "ann"), (60, "yan") }, players.Query().OrderBy(p => p.Id).Select(p => (p.Id, p.Name)));
        Assert.Null(ledger.Get(2));
        Assert.Equal(new[] { 1 }, byName.Equal("ann").Select(p => p.Id));
    }

    private static Task Single(Collection<int, Player> players, (char Kind, Player Player) write) => write.Kind switch
    {
        'i' => players.InsertAsync(write.Player),
        'u' => players.UpdateAsync(write.Player),
        's' => players.UpsertAsync(write.Player),
        _ => players.DeleteAsync(write.Player.Id),
    };

    private static (char Kind, Player Player) RandomWrite(Random random) =>
        ("iusdd"[random.Next(5)], new Player(random.Next(6), Names[random.Next(Names.Length)]!, random.Next(100), 0));

    /// <summary>The model's outcome of an atomic batch: every write checked against the state the earlier ones leave.</summary>
    private static Type? Apply(Dictionary<int, Player> model, List<(char Kind, Player Player)> batch)
    {
        var next = new Dictionary<int, Player>(model);
        foreach (var (kind, player) in batch)
        {
            var exists = next.ContainsKey(player.Id);
            if (kind == 'i' && exists)
            {
                return typeof(DuplicateKeyException);
            }

            if (kind == 'u' && !exists)
            {
                return typeof(KeyNotFoundException);
            }

            if (kind == 'd')
            {
                next.Remove(player.Id);
                continue;
            }

            if (player.Name is not null && next.Values.Any(p => p.Id != player.Id && p.Name == player.Name))
            {
                return typeof(UniqueConstraintException);
            }

            next[player.Id] = player;
        }

        model.Clear();
        foreach (var (id, player) in next)
        {
            model[id] = player;
        }

        return null;
    }

    private static void AssertAgrees(Dictionary<int, Player> model, Collection<int, Player> players, CollectionIndex<string?, int, Player> byName)
    {
        var expected = model.Values.OrderBy(p => p.Name, StringComparer.Ordinal).ThenBy(p => p.Id).ToList();
        Assert.Equal(expected, byName.All().ToList());
        Assert.Equal(model.Values.OrderBy(p => p.Id), players.Query().OrderBy(p => p.Id));
    }
}
