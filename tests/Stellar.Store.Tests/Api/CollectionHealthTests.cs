namespace Stellar.Store.Tests.Api;

/// <summary>
/// <see cref="StellarStore.GetCollectionHealth"/>: what a health check sees of each collection, against what the test
/// made happen to it (a failed append, a failed automatic compaction).
/// </summary>
public sealed class CollectionHealthTests
{
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(1);

    [Fact]
    public async Task GetCollectionHealth_WhenAnAppendFails_ReportsThatCollectionFaultedWithTheExceptionItsWritesFailWith()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage());
        var store = await StellarStore.OpenAsync(storage);
        try
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var guilds = store.GetCollection<int, Player>("guilds", p => p.Id);
            await players.InsertAsync(new Player(1, "kept", 1, 10));
            await guilds.InsertAsync(new Player(1, "guild", 1, 10));
            Assert.All(store.GetCollectionHealth(), h => Assert.False(h.IsFaulted, $"{h.Name} is faulted before any fault"));

            storage.FailAppendAt = storage.AppendCount + 1;
            var failed = await Assert.ThrowsAsync<StoreFaultedException>(() => players.InsertAsync(new Player(2, "lost", 2, 20)));

            var health = store.GetCollectionHealth().ToDictionary(h => h.Name);
            Assert.Equal(["players", "guilds"], health.Keys);
            Assert.Same(failed, health["players"].Fault);
            Assert.True(health["players"].IsFaulted);
            Assert.Null(health["guilds"].Fault);
            Assert.Null(health["players"].LastCompactionError);
        }
        finally
        {
            // The faulted collection cannot flush at close.
            await Record.ExceptionAsync(() => store.DisposeAsync().AsTask());
        }
    }

    [Fact]
    public async Task GetCollectionHealth_WhenWritesAcrossCollectionsAreRefused_ReportsTheUnitLogFaultedAndTheCollectionsNot()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage());
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var guilds = store.GetCollection<int, Player>("guilds", p => p.Id);
        await store.WriteAsync(tx =>
        {
            tx.In(players).Insert(new Player(1, "p", 1, 10));
            tx.In(guilds).Insert(new Player(1, "g", 1, 10));
        });
        Assert.All(store.GetCollectionHealth(), h => Assert.False(h.IsFaulted, $"{h.Name} is faulted before any fault"));

        // What the coordinator records when it faults (its decision failed, or something threw on its turn).
        var refused = new IOException("writes across collections failed");
        store.UnitsStatus.Faulted(refused);

        var listed = store.GetCollectionHealth();
        Assert.Equal(["players", "guilds", "$units"], listed.Select(h => h.Name));
        var health = listed.ToDictionary(h => h.Name);
        Assert.Same(refused, health["$units"].Fault);
        Assert.Null(health["players"].Fault);
        Assert.Null(health["guilds"].Fault);
    }

    [Fact]
    public async Task GetCollectionHealth_WhenAnAutomaticCompactionFails_ReportsItsErrorAndTheCollectionNotFaulted()
    {
        // Only a compaction renames (its finished output into place), so the first rename is a compaction's.
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailRenameAt = 1 };
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions { MaxShardBytes = 64 * 1024, CompactionThreshold = 0.5 });
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        // Each round overwrites every key, so the live share keeps falling and compactions keep being started; it runs
        // in the background, so the rounds go on until one has failed.
        var deadline = DateTime.UtcNow + HangTimeout;
        for (var round = 1; store.GetCollectionHealth().Single().LastCompactionError is null && DateTime.UtcNow < deadline; round++)
        {
            await players.WriteAsync(b =>
            {
                for (var i = 0; i < 200; i++)
                {
                    b.Upsert(new Player(i, $"player-{i}-round-{round}", round, i));
                }
            });
        }

        var health = store.GetCollectionHealth().Single();
        Assert.Equal("players", health.Name);
        Assert.IsType<IOException>(health.LastCompactionError);
        Assert.Same(players.Statistics.LastCompactionError, health.LastCompactionError);
        Assert.False(health.IsFaulted);
    }
}
