using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// A feed that stands at the committed end while the collection goes on: its next changes are the writes committed
/// after it, whatever happened to the shards it read meanwhile.
/// </summary>
public sealed class ChangeFeedLiveTailTests : IDisposable
{
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(20);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Changes_WaitingAtTheTailWhileACompactionRetiresItsShard_DeliverTheNextWrites()
    {
        var options = new StoreOptions { Durability = Durability.WriteThrough, CompactionThreshold = 0 };
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        for (var i = 0; i < 10; i++)
        {
            await accounts.UpsertAsync(new Account(i % 3, i));
        }

        using var guard = new CancellationTokenSource(HangGuard);
        await using var feed = accounts.Changes(ChangePosition.Start, guard.Token).GetAsyncEnumerator(guard.Token);
        for (var i = 0; i < 10; i++)
        {
            Assert.True(await feed.MoveNextAsync());
        }

        // The feed has read the active shard to its end and waits there; the compaction seals and retires that shard.
        var waiting = feed.MoveNextAsync().AsTask();
        await accounts.CompactAsync();
        var written = new List<int>();
        for (var i = 100; i < 105; i++)
        {
            await accounts.UpsertAsync(new Account(i, i));
            written.Add(i);
        }

        var delivered = new List<int>();
        var next = waiting;
        while (delivered.Count < written.Count)
        {
            Assert.True(await next.WaitAsync(HangGuard), "the feed ended");
            delivered.Add(feed.Current.Key);
            next = feed.MoveNextAsync().AsTask();
        }

        Assert.Equal(written, delivered);
        guard.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => next);
    }
}
