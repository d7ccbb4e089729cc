using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Expiry;

/// <summary>A bulk import whose records carry their ends: they expire at those times, across a reopen, as written one by one.</summary>
public sealed class ExpiringImportTests : IDisposable
{
    private const int Records = 10_000;
    private readonly TempDirectory _dir = new();
    private readonly TestClock _clock = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task BulkImport_WithEnds_ExpiresEachRecordAtItsEndAlsoAfterAReopen()
    {
        var options = new StoreOptions { Clock = _clock, ExpirySweepInterval = Timeout.InfiniteTimeSpan };
        var start = _clock.GetUtcNow();

        // The oracle: every third record lasts, the others end 1 to 10 minutes from now.
        DateTimeOffset? EndOf(int id) => id % 3 == 0 ? null : start + TimeSpan.FromMinutes(1 + (id % 10));
        var players = Enumerable.Range(1, Records).Select(i => new Player(i, $"p{i}", i, 1)).ToList();

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            await sessions.BulkImportAsync(players, p => EndOf(p.Id));
            Assert.Equal(Records, sessions.Count);
            Assert.All(players, p => Assert.Equal(EndOf(p.Id), sessions.ExpiresAt(p.Id)));

            _clock.Advance(TimeSpan.FromMinutes(5) + TimeSpan.FromSeconds(30));
            AssertLiveAt(sessions, players, EndOf, _clock.GetUtcNow());
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            AssertLiveAt(sessions, players, EndOf, _clock.GetUtcNow());

            _clock.Advance(TimeSpan.FromMinutes(10));
            AssertLiveAt(sessions, players, EndOf, _clock.GetUtcNow());
            Assert.Equal(Records - players.Count(p => EndOf(p.Id) is null), await sessions.RemoveExpiredAsync());
        }
    }

    [Fact]
    public async Task BulkImport_WithAnEndThatHasPassed_FailsAsABadRecordAndKeepsWholeBlocksBeforeIt()
    {
        var options = new StoreOptions { Clock = _clock, ExpirySweepInterval = Timeout.InfiniteTimeSpan };
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
        var now = _clock.GetUtcNow();
        var source = Enumerable.Range(1, Records).Select(i => new Player(i, $"p{i}", i, 1));

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() =>
            sessions.BulkImportAsync(source, p => p.Id == Records - 1 ? now : now + TimeSpan.FromHours(1)));

        // What was stored is a prefix of the source, and the record with the past end is not in it.
        var stored = sessions.Query().Select(p => p.Id).Order().ToList();
        Assert.Equal(Enumerable.Range(1, stored.Count), stored);
        Assert.True(stored.Count < Records - 1, $"{stored.Count} records stored");
        await Assert.ThrowsAsync<ArgumentNullException>(() => sessions.BulkImportAsync(source, expiresAt: null!));
    }

    private static void AssertLiveAt(Collection<int, Player> sessions, List<Player> players, Func<int, DateTimeOffset?> endOf, DateTimeOffset now)
    {
        var live = players.Where(p => endOf(p.Id) is not { } end || end > now).ToList();
        Assert.Equal(live.Count, sessions.Count);
        Assert.Equal(live, sessions.Query().OrderBy(p => p.Id));
        Assert.All(players.Except(live), p => Assert.Null(sessions.Get(p.Id)));
    }
}
