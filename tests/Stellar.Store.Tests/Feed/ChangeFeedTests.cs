using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Reliability;

namespace Stellar.Store.Tests.Feed;

/// <summary>What a consumer of <see cref="Collection{TKey,TValue}.Changes(ChangePosition, CancellationToken)"/> relies on, apart from the model test's replay.</summary>
public sealed class ChangeFeedTests
{
    private static readonly StoreOptions Options = new() { Durability = Durability.WriteThrough, CompactionThreshold = 0 };

    [Fact]
    public async Task Changes_FromStart_DeliversEveryWriteInCommitOrderWithItsKind()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.InsertAsync(new Account(1, 10));
        await accounts.UpdateAsync(new Account(1, 20));
        await accounts.InsertAsync(new Account(2, 5));
        await accounts.DeleteAsync(1);
        await accounts.UpsertAsync(new Account(3, 7));

        var changes = await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start);

        Assert.Equal(
            new[] { (ChangeKind.Put, 1, (long?)10), (ChangeKind.Put, 1, 20), (ChangeKind.Put, 2, 5), (ChangeKind.Delete, 1, null), (ChangeKind.Put, 3, 7) },
            changes.Select(c => (c.Kind, c.Key, c.Value?.Gold)));
    }

    [Fact]
    public async Task Changes_AnAtomicBatch_ArrivesWholeWithOnlyItsLastChangeEndingTheUnit()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.UpsertAsync(new Account(100, 0));
        await accounts.WriteAsync(b => b.Upsert(new Account(1, 1)).Upsert(new Account(2, 2)).Upsert(new Account(3, 3)).Delete(100));
        await accounts.UpsertAsync(new Account(4, 4));

        var changes = await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start);

        Assert.Equal(new[] { 100, 1, 2, 3, 100, 4 }, changes.Select(c => c.Key));
        Assert.Equal(new[] { true, false, false, false, true, true }, changes.Select(c => c.EndsUnit));
    }

    [Fact]
    public async Task Changes_ACrossCollectionPartOfSeveralBlocks_ArrivesWholeAsOneUnit()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        await a.UpsertAsync(new Account(-1, 0));

        // About 10,000 records of a few bytes: more than one 64 KiB block.
        await store.WriteAsync(tx =>
        {
            for (var i = 0; i < 10_000; i++)
            {
                tx.In(a).Upsert(new Account(i, i));
            }

            tx.In(b).Upsert(new Account(1, 1));
        });
        await a.UpsertAsync(new Account(-2, 0));

        var changes = await FeedReading.ReadToEndAsync(a, ChangePosition.Start);

        Assert.Equal(10_002, changes.Count);
        Assert.Equal(new[] { 0, 10_000, 10_001 }, changes.Select((c, i) => (c, i)).Where(p => p.c.EndsUnit).Select(p => p.i));
    }

    [Fact]
    public async Task Changes_FromNow_DeliversOnlyWritesCommittedAfterTheCall()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.UpsertAsync(new Account(1, 1));

        using var cancel = new CancellationTokenSource(TimeSpan.FromMinutes(2));
        await using var feed = accounts.Changes(ChangePosition.Now, cancel.Token).GetAsyncEnumerator(cancel.Token);
        var next = feed.MoveNextAsync().AsTask();
        await accounts.UpsertAsync(new Account(2, 2));

        Assert.True(await next);
        Assert.Equal(2, feed.Current.Key);
        var later = feed.MoveNextAsync().AsTask();
        await accounts.DeleteAsync(2);
        Assert.True(await later);
        Assert.Equal((ChangeKind.Delete, 2), (feed.Current.Kind, feed.Current.Key));
    }

    [Fact]
    public async Task Changes_InBufferedMode_ReachTheLiveTailWithoutAFlushByTheCaller()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), new StoreOptions { Durability = Durability.Buffered });
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.UpsertAsync(new Account(1, 1));

        // Buffered in memory: the feed flushes what it finds beyond the file, then waits at the tail.
        var first = await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start);
        using var cancel = new CancellationTokenSource(TimeSpan.FromMinutes(2));
        await using var feed = accounts.Changes(first[^1].Position, cancel.Token).GetAsyncEnumerator(cancel.Token);
        var next = feed.MoveNextAsync().AsTask();
        await accounts.UpsertAsync(new Account(2, 2));

        Assert.Equal(new[] { 1 }, first.Select(c => c.Key));
        Assert.True(await next);
        Assert.Equal(2, feed.Current.Key);
    }

    [Fact]
    public async Task Changes_FromAPositionAfterAReopen_ResumeWithTheNextChange()
    {
        var memory = new MemoryStorage();
        ChangePosition saved;
        await using (var store = await StellarStore.OpenAsync(memory, Options))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            await accounts.UpsertAsync(new Account(1, 1));
            await accounts.WriteAsync(b => b.Upsert(new Account(2, 2)).Upsert(new Account(3, 3)));
            await accounts.UpsertAsync(new Account(4, 4));
            var changes = await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start);
            saved = ChangePosition.Parse(changes.Single(c => c.Key == 2).Position.ToString());
        }

        await using var reopened = await StellarStore.OpenAsync(memory, Options);
        var again = reopened.GetCollection<int, Account>("accounts", a => a.Id);
        await again.UpsertAsync(new Account(5, 5));

        Assert.Equal(new[] { 3, 4, 5 }, (await FeedReading.ReadToEndAsync(again, saved)).Select(c => c.Key));
    }

    [Fact]
    public async Task Changes_FromAPositionACompactionReplaced_ThrowNamingTheOldestPosition()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        for (var i = 0; i < 10; i++)
        {
            await accounts.UpsertAsync(new Account(i % 3, i));
        }

        var early = (await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start))[2].Position;
        await accounts.CompactAsync();
        await accounts.UpsertAsync(new Account(7, 7));

        var error = await Assert.ThrowsAsync<ChangeFeedPositionUnavailableException>(() => FeedReading.ReadToEndAsync(accounts, early));
        Assert.Equal(early, error.Requested);
        Assert.True(error.Oldest.IsSnapshot);

        // From the oldest position: the snapshot of the three live records, then the write after the compaction.
        var fromOldest = await FeedReading.ReadToEndAsync(accounts, error.Oldest);
        Assert.Equal(new[] { (0, 9L), (1, 7L), (2, 8L), (7, 7L) }, fromOldest.Select(c => (c.Key, c.Value!.Gold)).OrderBy(p => p.Key));
        Assert.Equal(7, fromOldest[^1].Key);
    }

    [Fact]
    public async Task Changes_AfterACompaction_ContinueFromAPositionPastWhatItReplacedAndRefuseOneBefore()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.UpsertAsync(new Account(1, 1));
        var behind = (await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start))[^1].Position;
        await accounts.UpsertAsync(new Account(1, 2));
        var caughtUp = (await FeedReading.ReadToEndAsync(accounts, behind))[^1].Position;
        await accounts.CompactAsync();
        await accounts.UpsertAsync(new Account(1, 3));

        Assert.Equal(new[] { 3L }, (await FeedReading.ReadToEndAsync(accounts, caughtUp)).Select(c => c.Value!.Gold));
        // The change after the other position was replaced: the feed says so rather than skip it.
        await Assert.ThrowsAsync<ChangeFeedPositionUnavailableException>(() => FeedReading.ReadToEndAsync(accounts, behind));
    }

    [Fact]
    public async Task Changes_OfARoundWhoseDecisionNeverReachedStorage_NeverAppear()
    {
        var options = new StoreOptions { Durability = Durability.WriteThrough };
        var memory = new MemoryStorage();
        using var fence = new CrashFence(memory);
        var faults = new FaultInjectingStorage(fence);
        var store = await StellarStore.OpenAsync(faults, options);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        await store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(1, 1));
            tx.In(b).Insert(new Account(1, 1));
        });

        // Two parts are appended, then the decision's append fails before it reaches storage.
        faults.FailOperationAt = faults.OperationCount + 3;
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.WriteAsync(tx =>
        {
            tx.In(a).Insert(new Account(2, 2));
            tx.In(b).Insert(new Account(2, 2));
        }));
        await Crash.AndAbandonAsync(fence, memory, store, losesUnsyncedData: false);

        await using var reopened = await StellarStore.OpenAsync(memory, options);
        var again = reopened.GetCollection<int, Account>("a", x => x.Id);
        await again.UpsertAsync(new Account(3, 3));

        Assert.Equal(1, again.Statistics.UncommittedUnitBlocks);
        Assert.Equal(new[] { 1, 3 }, (await FeedReading.ReadToEndAsync(again, ChangePosition.Start)).Select(c => c.Key));
    }

    [Fact]
    public async Task Changes_WaitingAtTheTailWhenTheStoreCloses_EndWithObjectDisposedException()
    {
        var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await using var feed = accounts.Changes(ChangePosition.Now).GetAsyncEnumerator();
        var next = feed.MoveNextAsync().AsTask();

        await store.DisposeAsync();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => next);
    }
}
