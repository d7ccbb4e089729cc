using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Expiry;

/// <summary>A rollback to a checkpoint gives each restored record the end it had there, as a game relies on for auctions and sessions.</summary>
public sealed class ExpiringRollbackTests : IDisposable
{
    private readonly TempDirectory _dir = new();
    private readonly TestClock _clock = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Rollback_RestoresEachRecordsEndFromTheCheckpoint_NotTheCollectionsPolicy()
    {
        var ends = _clock.GetUtcNow() + TimeSpan.FromMinutes(30);
        var options = Options(_clock);
        await using var store = await StellarStore.OpenAsync(_dir.Sub("store"), options);
        var auctions = store.GetCollection<int, Player>("auctions", p => p.Id);
        await auctions.UpsertAsync(new Player(1, "sword", 1, 100), ends);
        await auctions.UpsertAsync(new Player(2, "shield", 1, 50));
        var checkpoint = await store.CheckpointAsync("before-exploit");

        // The exploit: the auction's price changed and given no end, the open-ended one given an end.
        await auctions.UpsertAsync(new Player(1, "sword", 1, 1));
        await auctions.UpsertAsync(new Player(2, "shield", 1, 1), TimeSpan.FromMinutes(1));
        auctions.SetExpiryPolicy(TimeSpan.FromMinutes(5));
        await using (var then = await StellarStore.OpenReadOnlyAsync(checkpoint.Path, options))
        {
            Assert.Equal(2, await auctions.RollbackAsync(then, [1, 2]));
        }

        Assert.Equal(new Player(1, "sword", 1, 100), auctions.Get(1));
        Assert.Equal(ends, auctions.ExpiresAt(1));
        Assert.Null(auctions.ExpiresAt(2));

        _clock.Advance(TimeSpan.FromMinutes(31));
        Assert.Null(auctions.Get(1));
        Assert.Equal(new Player(2, "shield", 1, 50), auctions.Get(2));
    }

    [Fact]
    public async Task Rollback_OfARecordWhoseCheckpointedEndHasPassed_DeletesTheKey_ByEitherStoresClock()
    {
        var options = Options(_clock);
        await using var store = await StellarStore.OpenAsync(_dir.Sub("store"), options);
        var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
        await sessions.UpsertAsync(new Player(1, "session", 1, 1), TimeSpan.FromMinutes(10));
        await sessions.UpsertAsync(new Player(2, "session", 1, 1), TimeSpan.FromMinutes(10));
        var checkpoint = await store.CheckpointAsync("sessions");
        await sessions.UpsertAsync(new Player(1, "renewed", 1, 1), TimeSpan.FromHours(1));
        await sessions.UpsertAsync(new Player(2, "renewed", 1, 1), TimeSpan.FromHours(1));
        _clock.Advance(TimeSpan.FromMinutes(20));

        // Read by this store's clock, the checkpoint holds no session 1: it had ended, so the key is deleted.
        await using (var then = await StellarStore.OpenReadOnlyAsync(checkpoint.Path, options))
        {
            Assert.Equal(1, await sessions.RollbackAsync(then, [1]));
        }

        // Read by a clock that is behind, the checkpoint still shows session 2; by this store's clock it has ended,
        // so it is deleted too, not brought back.
        var behind = new TestClock();
        await using (var then = await StellarStore.OpenReadOnlyAsync(checkpoint.Path, Options(behind)))
        {
            Assert.NotNull(then.GetCollection<int, Player>("sessions", p => p.Id).Get(2));
            Assert.Equal(1, await sessions.RollbackAsync(then, [2]));
        }

        Assert.Null(sessions.Get(1));
        Assert.Null(sessions.Get(2));
        Assert.Equal(0, sessions.Count);
        Assert.Equal(0, await sessions.RemoveExpiredAsync());
    }

    private static StoreOptions Options(TestClock clock) => new() { Clock = clock, ExpirySweepInterval = Timeout.InfiniteTimeSpan };
}
