using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// An index that is not unique is built beside the collection's writer: writes go on while it builds, and once it is
/// ready it holds them as if it had been kept all along. Each build here is held inside its key selector until the
/// test lets it go, so that the writes provably happen during the build.
/// </summary>
public sealed class IndexBuildAsideTests : IDisposable
{
    /// <summary>Only so that a regression fails instead of hanging the run; nothing is timed.</summary>
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(60);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Index_WhileItsBuildIsHeld_WritesCompleteAndTheIndexThenHoldsThem()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Fill(players, 500);
        using var gate = new BuildGate();
        var byGold = players.Index("by-gold", p => gate.Pass(p.Gold));
        gate.WaitUntilHeld();

        // A write of every kind while the build is held: each completes, since the writer is not the one building.
        await players.InsertAsync(new Player(1000, "new", 1, 7)).WaitAsync(HangGuard);
        await players.UpdateAsync(new Player(3, "moved", 1, 99_999)).WaitAsync(HangGuard);
        await players.UpdateAsync(new Player(4, "same key", 2, 40)).WaitAsync(HangGuard);
        await players.DeleteAsync(5).WaitAsync(HangGuard);
        await players.WriteAsync(b =>
        {
            b.Upsert(new Player(6, "batch", 1, 1));
            b.Delete(7);
            b.Insert(new Player(1001, "batch new", 1, 7));
        }).WaitAsync(HangGuard);
        await players.UpdateAsync(new Player(3, "moved twice", 1, -3)).WaitAsync(HangGuard);
        Assert.False(byGold.Ready.IsCompleted);

        // A build takes long: it runs on a thread of its own, so that the writes it must not hold back keep the pool's.
        Assert.False(gate.HeldOnPoolThread);

        // The build reads the records as they were when it started: the versions it may read are kept for it.
        Assert.Equal(1, players.Statistics.OpenSnapshots);
        Assert.True(players.Statistics.RetainedVersions > 0);

        gate.Open();
        await byGold.Ready.WaitAsync(HangGuard);
        AssertAgrees(players, byGold);
        Assert.Equal(0, players.Statistics.OpenSnapshots);
        Assert.Equal("moved twice", byGold.Bottom(1).Single().Name);
        Assert.Equal("same key", byGold.Equal(40).Single().Name);

        // And it is kept from then on.
        await players.UpdateAsync(new Player(8, "later", 1, 123_456));
        await players.DeleteAsync(9);
        AssertAgrees(players, byGold);
    }

    [Fact]
    public async Task Index_WhenThousandsOfWritesWaitForItsBuild_TakesThemAllInTheOrderTheyWereMade()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Fill(players, 1_000);
        using var gate = new BuildGate();
        var byGold = players.Index("by-gold", p => gate.Pass(p.Gold));
        gate.WaitUntilHeld();

        // More versions than the install takes on the writer's turn: most are taken on the build's thread, in order,
        // and the same records move, go and come back many times, so that an order mixed up shows in the answer.
        var random = new Random(7);
        for (var batch = 0; batch < 40; batch++)
        {
            await players.WriteAsync(b =>
            {
                foreach (var id in Enumerable.Range(0, 100).Select(_ => random.Next(1_200)).Distinct())
                {
                    if (random.Next(4) == 0)
                    {
                        b.Delete(id);
                    }
                    else
                    {
                        b.Upsert(new Player(id, $"b{batch}", batch, random.Next(50)));
                    }
                }
            }).WaitAsync(HangGuard);
        }

        gate.Open();
        await byGold.Ready.WaitAsync(HangGuard);
        AssertAgrees(players, byGold);
        await players.UpsertAsync(new Player(1, "after", 1, 1));
        AssertAgrees(players, byGold);
    }

    [Fact]
    public async Task Index_DeclaredWhileWritersWrite_AgreesWithEverySnapshotOnceReady()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Fill(players, 2_000);
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, 4).Select(w => Task.Run(async () =>
        {
            var random = new Random(w);
            var writes = 0;
            while (!stop.IsCancellationRequested || writes < 200)
            {
                var id = random.Next(2_200);
                if (random.Next(5) == 0)
                {
                    await players.DeleteAsync(id);
                }
                else
                {
                    await players.UpsertAsync(new Player(id, $"w{w}", w, random.Next(1_000)));
                }

                writes++;
            }
        })).ToArray();

        var byGold = players.Index("by-gold", p => p.Gold);
        var byLevel = players.IndexMany("by-level-and-gold", p => new[] { (long)p.Level, -p.Gold });
        await Task.WhenAll(byGold.Ready, byLevel.Ready).WaitAsync(HangGuard);
        for (var check = 0; check < 20; check++)
        {
            using var snapshot = players.Snapshot();
            var records = snapshot.Query().ToList();
            Assert.Equal(records.OrderBy(p => p.Gold).ThenBy(p => p.Id).Select(p => p.Id), snapshot.Index(byGold).All().Select(p => p.Id));
            Assert.Equal(
                records.SelectMany(p => new[] { (Key: (long)p.Level, p.Id), (Key: -p.Gold, p.Id) }).Distinct().OrderBy(e => e.Key).ThenBy(e => e.Id).Select(e => e.Id),
                snapshot.Index(byLevel).All().Select(p => p.Id));
        }

        stop.Cancel();
        await Task.WhenAll(writers).WaitAsync(HangGuard);
        AssertAgrees(players, byGold);
    }

    [Fact]
    public async Task Index_WhoseValuesAreOnDisk_BuildsFromItsVersionWhileACompactionMovesThem()
    {
        var options = new StoreOptions { LargeValueThreshold = 1024 };
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Fill(players, 300, name: new string('x', 2_000));
        using var gate = new BuildGate();
        var byGold = players.Index("by-gold", p => gate.Pass(p.Gold));
        gate.WaitUntilHeld();

        // Every record replaced and the old versions compacted away while the build still has most of them to read.
        await players.WriteAsync(b =>
        {
            for (var i = 0; i < 300; i++)
            {
                b.Upsert(new Player(i, new string('y', 2_000), 2, 5_000 - i));
            }
        }).WaitAsync(HangGuard);
        await players.CompactAsync().WaitAsync(HangGuard);

        gate.Open();
        await byGold.Ready.WaitAsync(HangGuard);
        AssertAgrees(players, byGold);
        Assert.Equal(299, byGold.Bottom(1).Single().Id);
    }

    [Fact]
    public async Task DropIndex_DuringItsBuild_FaultsReadyFreesTheNameAndWritesGoOn()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Fill(players, 100);
        using var gate = new BuildGate();
        var byGold = players.Index("by-gold", p => gate.Pass(p.Gold));
        gate.WaitUntilHeld();

        await players.DropIndexAsync(byGold).WaitAsync(HangGuard);
        await players.UpsertAsync(new Player(1, "after the drop", 1, 1)).WaitAsync(HangGuard);
        gate.Open();

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => byGold.Ready.WaitAsync(HangGuard));
        Assert.Contains("dropped", error.Message);
        var again = players.Index("by-gold", p => p.Gold);
        await again.Ready.WaitAsync(HangGuard);
        AssertAgrees(players, again);
    }

    [Fact]
    public async Task Index_WhoseSelectorThrowsForAWriteMadeDuringItsBuild_FaultsReadyAndTheNameIsFree()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Fill(players, 100);
        using var gate = new BuildGate();
        var byGold = players.Index("by-gold", p => gate.Pass(p.Gold) >= 0 ? p.Gold : throw new FormatException("no negative gold"));
        gate.WaitUntilHeld();

        // Held for the index and taken at its install, on the writer's turn: the selector fails there, not in the build.
        await players.UpsertAsync(new Player(1000, "in debt", 1, -5)).WaitAsync(HangGuard);
        gate.Open();

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => byGold.Ready.WaitAsync(HangGuard));
        Assert.IsType<FormatException>(error.InnerException);
        Assert.Throws<InvalidOperationException>(() => byGold.Top(1));
        await players.UpsertAsync(new Player(1000, "paid", 1, 5)).WaitAsync(HangGuard);
        var again = players.Index("by-gold", p => p.Gold);
        await again.Ready.WaitAsync(HangGuard);
        AssertAgrees(players, again);
    }

    [Fact]
    public async Task Dispose_DuringABuild_ClosesTheStoreFaultsReadyAndTheRecordsReopen()
    {
        var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Fill(players, 100);
        using var gate = new BuildGate();
        var byGold = players.Index("by-gold", p => gate.Pass(p.Gold));
        gate.WaitUntilHeld();
        await players.UpsertAsync(new Player(1, "during the build", 1, 1)).WaitAsync(HangGuard);

        await store.DisposeAsync().AsTask().WaitAsync(HangGuard);
        gate.Open();
        await Assert.ThrowsAnyAsync<Exception>(() => byGold.Ready.WaitAsync(HangGuard));

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        Assert.Equal(100, again.Count);
        Assert.Equal("during the build", again.Get(1)!.Name);
        var byGoldAgain = again.Index("by-gold", p => p.Gold);
        await byGoldAgain.Ready.WaitAsync(HangGuard);
        AssertAgrees(again, byGoldAgain);
    }

    [Fact]
    public async Task UniqueIndex_IsBuiltOnTheWritersTurn_SoAWriteQueuedAfterItsDeclarationIsChecked()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Fill(players, 100);
        using var gate = new BuildGate();
        var byName = players.Index("by-name", p => gate.Pass(p.Name), unique: true);
        gate.WaitUntilHeld();
        var clash = players.InsertAsync(new Player(1000, "p3", 1, 1));

        // The writer is building: the write waits for the build, and is then checked against the index.
        Assert.False(clash.IsCompleted);
        gate.Open();
        await byName.Ready.WaitAsync(HangGuard);
        await Assert.ThrowsAsync<UniqueConstraintException>(() => clash.WaitAsync(HangGuard));
        Assert.Null(players.Get(1000));
    }

    private static async Task Fill(Collection<int, Player> players, int count, string? name = null) =>
        await players.WriteAsync(b =>
        {
            for (var i = 0; i < count; i++)
            {
                b.Insert(new Player(i, name ?? $"p{i}", i % 7, i * 10));
            }
        });

    /// <summary>The index's answer is the records of one snapshot ordered by gold, then key: a brute-force scan.</summary>
    private static void AssertAgrees(Collection<int, Player> players, CollectionIndex<long, int, Player> byGold)
    {
        using var snapshot = players.Snapshot();
        var expected = snapshot.Query().OrderBy(p => p.Gold).ThenBy(p => p.Id).Select(p => (p.Id, p.Name, p.Gold));
        Assert.Equal(expected, snapshot.Index(byGold).All().Select(p => (p.Id, p.Name, p.Gold)));
    }

    /// <summary>Holds the first key selector call that meets it until <see cref="Open"/>; every call after passes.</summary>
    private sealed class BuildGate : IDisposable
    {
        private readonly ManualResetEventSlim _held = new();
        private readonly ManualResetEventSlim _open = new();

        /// <summary>Whether the call held was on a thread of the thread pool.</summary>
        public bool HeldOnPoolThread { get; private set; }

        public T Pass<T>(T key)
        {
            if (!_open.IsSet)
            {
                HeldOnPoolThread = Thread.CurrentThread.IsThreadPoolThread;
                _held.Set();
                _open.Wait();
            }

            return key;
        }

        public void WaitUntilHeld() => Assert.True(_held.Wait(HangGuard), "the build never called its key selector");

        public void Open() => _open.Set();

        public void Dispose()
        {
            _open.Set();
            _held.Dispose();
            _open.Dispose();
        }
    }
}
