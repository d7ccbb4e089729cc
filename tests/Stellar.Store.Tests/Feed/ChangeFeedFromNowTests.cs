using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// A feed from <see cref="ChangePosition.Now"/> starts where the collection stood when it was asked for, so that a
/// snapshot taken after asking and the feed together hold every write.
/// </summary>
public sealed class ChangeFeedFromNowTests : IDisposable
{
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(20);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Changes_FromNow_StartAtTheEndAsOfTheCallSoASnapshotTakenAfterItMissesNothing()
    {
        var options = new StoreOptions { Durability = Durability.WriteThrough, CompactionThreshold = 0 };
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        var expected = new HashSet<int>();
        for (var i = 0; i < 20; i++)
        {
            await accounts.UpsertAsync(new Account(i, i));
            expected.Add(i);
        }

        // Writers insert new keys while a consumer asks for the feed from now, loads a snapshot, then reads the feed:
        // every key must be in the snapshot or come through the feed.
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(1, 2).Select(w => Task.Run(async () =>
        {
            var mine = new List<int>();
            for (var n = 0; !stop.IsCancellationRequested; n++)
            {
                var key = (w * 1_000_000) + n;
                await accounts.InsertAsync(new Account(key, n));
                mine.Add(key);
            }

            return mine;
        })).ToArray();

        using var guard = new CancellationTokenSource(HangGuard);
        var changes = accounts.Changes(ChangePosition.Now, guard.Token);
        var seen = new HashSet<int>();
        using (var snapshot = accounts.Snapshot())
        {
            seen.UnionWith(snapshot.Query().Select(a => a.Id));
        }

        // Writes commit between the snapshot and the feed's first step.
        await Task.Delay(50);
        await using var feed = changes.GetAsyncEnumerator(guard.Token);
        var next = feed.MoveNextAsync().AsTask();
        await Task.Delay(50);
        stop.Cancel();
        foreach (var writer in writers)
        {
            expected.UnionWith(await writer);
        }

        await accounts.UpsertAsync(new Account(-1, -1));
        expected.Add(-1);
        while (true)
        {
            Assert.True(await next.WaitAsync(HangGuard), "the feed ended");
            seen.Add(feed.Current.Key);
            if (feed.Current.Key == -1)
            {
                break;
            }

            next = feed.MoveNextAsync().AsTask();
        }

        Assert.Empty(expected.Except(seen).Order());
    }
}
