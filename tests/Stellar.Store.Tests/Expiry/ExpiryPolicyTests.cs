using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Expiry;

/// <summary>
/// A collection's expiry policy: every write that gives no expiry of its own gets the policy's, whichever way it is
/// written, checked against the times the test computes from its own clock.
/// </summary>
public sealed class ExpiryPolicyTests : IDisposable
{
    private readonly TempDirectory _dir = new();
    private readonly TestClock _clock = new();

    public void Dispose() => _dir.Dispose();

    private StoreOptions Options => new() { Clock = _clock, ExpirySweepInterval = Timeout.InfiniteTimeSpan };

    [Fact]
    public async Task Policy_AfterWrite_AppliesToEveryKindOfWriteWithoutAnExpiryOfItsOwn()
    {
        var start = _clock.GetUtcNow();
        var lifetime = TimeSpan.FromMinutes(30);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            var ledger = store.GetCollection<int, Player>("ledger", p => p.Id);
            await sessions.UpsertAsync(Player(1));
            sessions.SetExpiryPolicy(lifetime);
            await sessions.UpsertAsync(Player(2));
            await sessions.InsertAsync(Player(3));
            await sessions.WriteAsync(b => b.Insert(Player(4)).Upsert(Player(5)));
            await store.WriteAsync(tx =>
            {
                tx.In(sessions).Upsert(Player(6));
                tx.In(ledger).Upsert(Player(6));
            });
            await sessions.BulkImportAsync([Player(7), Player(8)]);
            await sessions.UpsertAsync(Player(9), TimeSpan.FromMinutes(5));
            await sessions.UpsertAsync(Player(10));
            await sessions.UpdateAsync(Player(10));
            sessions.ClearExpiryPolicy();
            await sessions.UpsertAsync(Player(11));

            Assert.Null(sessions.ExpiresAt(1));
            foreach (var id in new[] { 2, 3, 4, 5, 6, 7, 8, 10 })
            {
                Assert.Equal(start + lifetime, sessions.ExpiresAt(id));
            }

            Assert.Equal(start + TimeSpan.FromMinutes(5), sessions.ExpiresAt(9));
            Assert.Null(sessions.ExpiresAt(11));
            Assert.Null(ledger.ExpiresAt(6));
        }

        // The ends are stored with the records: a reopen without the policy keeps them, and they expire at their time.
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            Assert.Equal(start + lifetime, sessions.ExpiresAt(2));
            _clock.Advance(lifetime);
            Assert.Equal([1, 11], sessions.Query().Select(p => p.Id).Order().ToList());
            Assert.Equal(2, sessions.Count);
        }
    }

    [Fact]
    public async Task Policy_FromTheValue_ExpiresEachRecordAtItsOwnEndAndRejectsAnEndThatHasPassed()
    {
        var start = _clock.GetUtcNow();
        DateTimeOffset? EndOf(Player p) => p.Level == 0 ? null : start + TimeSpan.FromMinutes(p.Level);
        await using var store = await StellarStore.OpenAsync(_dir.Path, Options);
        var auctions = store.GetCollection<int, Player>("auctions", p => p.Id);
        auctions.SetExpiryPolicy(a => EndOf(a));
        var all = Enumerable.Range(1, 20).Select(i => new Player(i, "a", i % 4 * 10, 0)).ToList();
        foreach (var auction in all)
        {
            await auctions.UpsertAsync(auction);
        }

        Assert.All(all, a => Assert.Equal(EndOf(a), auctions.ExpiresAt(a.Id)));
        _clock.Advance(TimeSpan.FromMinutes(15));
        Assert.Equal(all.Where(a => EndOf(a) is not { } end || end > _clock.GetUtcNow()).Select(a => a.Id), auctions.Query().Select(a => a.Id).Order());

        // An end that has passed by the store's clock fails the write, and stores nothing of its batch.
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => auctions.UpsertAsync(new Player(100, "late", 10, 0)));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => auctions.WriteAsync(b => b.Upsert(new Player(101, "ok", 30, 0)).Upsert(new Player(102, "late", 10, 0))));
        Assert.Null(auctions.Get(100));
        Assert.Null(auctions.Get(101));
    }

    [Fact]
    public async Task Policy_DoesNotReplaceAnEndThatSaysNever_FromAnImportsEndFunctionOrTheValuePolicy()
    {
        var start = _clock.GetUtcNow();
        var lifetime = TimeSpan.FromMinutes(5);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            var auctions = store.GetCollection<int, Player>("auctions", p => p.Id);
            sessions.SetExpiryPolicy(lifetime);

            // Moved from another server: an end function that gives none means the record never ends, policy or not.
            await sessions.BulkImportAsync([Player(1), Player(2)], p => p.Id == 1 ? null : start + TimeSpan.FromMinutes(30));
            await sessions.BulkImportAsync([Player(3)]);
            Assert.Null(sessions.ExpiresAt(1));
            Assert.Equal(start + TimeSpan.FromMinutes(30), sessions.ExpiresAt(2));
            Assert.Equal(start + lifetime, sessions.ExpiresAt(3));

            // A value policy that gives no end makes a record that never expires.
            auctions.SetExpiryPolicy(a => a.Level == 0 ? null : start + TimeSpan.FromMinutes(a.Level));
            await auctions.UpsertAsync(new Player(1, "open-ended", 0, 0));
            await auctions.WriteAsync(b => b.Upsert(new Player(2, "open-ended", 0, 0)));
            await store.WriteAsync(tx => tx.In(auctions).Upsert(new Player(3, "open-ended", 0, 0)));
            Assert.All([1, 2, 3], id => Assert.Null(auctions.ExpiresAt(id)));
        }

        // Stored as never: a reopen and a clock far ahead keep the records.
        _clock.Advance(TimeSpan.FromDays(1));
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            Assert.Equal([1], store.GetCollection<int, Player>("sessions", p => p.Id).Query().Select(p => p.Id).ToList());
            Assert.Equal(3, store.GetCollection<int, Player>("auctions", p => p.Id).Count);
        }
    }

    private static Player Player(int id) => new(id, $"p{id}", 1, 1);
}
