using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Reliability;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// A position the collection has not reached (past its end, past a block's records, past a snapshot) is refused with
/// an error naming it, where reading on from it would skip acknowledged writes without a word; the end itself, and
/// every position a feed delivered, stay valid.
/// </summary>
public sealed class ChangeFeedUnreachedPositionTests
{
    private static readonly StoreOptions Options = new() { Durability = Durability.WriteThrough, CompactionThreshold = 0 };

    [Fact]
    public async Task Changes_FromAPositionPastTheEnd_ThrowNamingThePositionAndTheEnd()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        for (var i = 0; i < 3; i++)
        {
            await accounts.UpsertAsync(new Account(i, i));
        }

        var end = (await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start))[^1].Position;
        var beyond = ChangePosition.Parse("1000.0");

        var error = Assert.Throws<ArgumentOutOfRangeException>(() => accounts.Changes(beyond));
        Assert.Equal(beyond, error.ActualValue);
        Assert.Contains("1000.0", error.Message, StringComparison.Ordinal);
        Assert.Contains(end.ToString(), error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentOutOfRangeException>(() => accounts.Changes(ChangePosition.Parse($"{end.Sequence}.1")));
    }

    [Fact]
    public async Task Changes_FromTheEnd_DeliverTheNextWrite_AlsoAfterAReopen()
    {
        var memory = new MemoryStorage();
        ChangePosition end;
        await using (var store = await StellarStore.OpenAsync(memory, Options))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            await accounts.UpsertAsync(new Account(1, 1));
            end = (await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start))[^1].Position;
            var next = FeedReading.ReadKeysAsync(accounts.Changes(end), 1);
            await accounts.UpsertAsync(new Account(2, 2));
            Assert.Equal(new[] { 2 }, await next);
            end = (await FeedReading.ReadToEndAsync(accounts, end))[^1].Position;
        }

        await using var reopened = await StellarStore.OpenAsync(memory, Options);
        var again = reopened.GetCollection<int, Account>("accounts", a => a.Id);
        var afterReopen = FeedReading.ReadKeysAsync(again.Changes(ChangePosition.Parse(end.ToString())), 1);
        await again.UpsertAsync(new Account(3, 3));

        Assert.Equal(new[] { 3 }, await afterReopen);
    }

    [Fact]
    public async Task Changes_FromARecordPastItsBlock_Throw()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.WriteAsync(b => b.Upsert(new Account(1, 1)).Upsert(new Account(2, 2)));
        await accounts.UpsertAsync(new Account(3, 3));
        var first = (await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start))[0].Position;

        // The batch's block holds two records: 1 and 2 name points in it, 3 names none.
        Assert.Equal(new[] { 2, 3 }, (await FeedReading.ReadToEndAsync(accounts, ChangePosition.Parse($"{first.Sequence}.1"))).Select(c => c.Key));
        var error = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => FeedReading.ReadToEndAsync(accounts, ChangePosition.Parse($"{first.Sequence}.3")));
        Assert.Contains($"{first.Sequence}.3", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Changes_FromASnapshotPositionPastTheSnapshot_Throw()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        for (var i = 0; i < 5; i++)
        {
            await accounts.UpsertAsync(new Account(i, i));
        }

        await accounts.CompactAsync();
        await accounts.UpsertAsync(new Account(5, 5));
        var through = (await FeedReading.ReadPositionsAsync(accounts, 1))[0].Sequence;

        Assert.Throws<ArgumentOutOfRangeException>(() => accounts.Changes(ChangePosition.Parse($"{through}~999999")));
        Assert.Throws<ArgumentOutOfRangeException>(() => accounts.Changes(ChangePosition.Parse($"{through}~6")));
        Assert.Throws<ArgumentOutOfRangeException>(() => accounts.Changes(ChangePosition.Parse($"{through + 1}~0")));

        // The snapshot's end is where history goes on.
        Assert.Equal(new[] { 5 }, (await FeedReading.ReadToEndAsync(accounts, ChangePosition.Parse($"{through}~5"))).Select(c => c.Key));
    }

    [Fact]
    public async Task Acknowledge_APositionPastTheEnd_IsRefusedAndTheCursorReadsEveryLaterWrite()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.UpsertAsync(new Account(0, 0));
        var cursor = accounts.Feed("replica");

        var error = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => cursor.AcknowledgeAsync(ChangePosition.Parse("1000.0")));
        Assert.Equal("position", error.ParamName);
        Assert.Equal(ChangePosition.Start, cursor.Position);

        await accounts.UpsertAsync(new Account(1, 1));
        Assert.Equal(new[] { 0, 1 }, await FeedReading.ReadKeysAsync(cursor.Changes(), 2));

        // The end itself is a position the feed delivers: acknowledged as any other.
        var end = (await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start))[^1].Position;
        await cursor.AcknowledgeAsync(end);
        Assert.Equal(end, cursor.Position);
    }

    [Fact]
    public async Task Acknowledge_ASnapshotPositionPastTheSnapshot_IsRefused()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        for (var i = 0; i < 5; i++)
        {
            await accounts.UpsertAsync(new Account(i, i));
        }

        await accounts.CompactAsync();
        var snapshot = await FeedReading.ReadPositionsAsync(accounts, 4);
        var cursor = accounts.Feed("replica");

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => cursor.AcknowledgeAsync(ChangePosition.Parse($"{snapshot[0].Sequence}~6")));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => cursor.AcknowledgeAsync(ChangePosition.Parse($"{snapshot[0].Sequence + 1}~0")));
        Assert.Equal(ChangePosition.Start, cursor.Position);

        await cursor.AcknowledgeAsync(snapshot[3]);
        Assert.Equal(snapshot[3], cursor.Position);
    }
}
