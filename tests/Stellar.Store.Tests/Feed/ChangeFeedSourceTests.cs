using Akka.Actor;
using Akka.Streams;
using Akka.Streams.Dsl;
using Stellar.Store.Actors;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Feed;

/// <summary>The feed as an Akka.Streams source: the same changes, pulled only on demand.</summary>
public sealed class ChangeFeedSourceTests : IAsyncLifetime
{
    private static readonly StoreOptions Options = new() { Durability = Durability.WriteThrough, CompactionThreshold = 0 };
    private readonly ActorSystem _system = ActorSystem.Create("change-feed-source");

    public Task InitializeAsync() => Task.CompletedTask;

    public Task DisposeAsync() => _system.Terminate();

    [Fact]
    public async Task Create_DeliversTheFeedsChangesInOrderThenTheLiveTail()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.UpsertAsync(new Account(1, 1));
        await accounts.WriteAsync(b => b.Upsert(new Account(2, 2)).Delete(1));
        var expected = await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start);

        var received = ChangeFeedSource.Create(ct => accounts.Changes(ChangePosition.Start, ct))
            .Take(expected.Count + 1)
            .RunWith(Sink.Seq<Change<int, Account>>(), _system.Materializer());
        await accounts.UpsertAsync(new Account(3, 3));

        var all = await received;
        Assert.Equal(expected, all.Take(expected.Count));
        Assert.Equal(3, all[^1].Key);
    }

    [Fact]
    public async Task Create_ReadsTheFeedOnlyAsFastAsDownstreamPulls()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        for (var i = 0; i < 200; i++)
        {
            await accounts.UpsertAsync(new Account(i, i));
        }

        var read = 0;
        async IAsyncEnumerable<Change<int, Account>> Counted([System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken ct = default)
        {
            await foreach (var change in accounts.Changes(ChangePosition.Start, ct))
            {
                Interlocked.Increment(ref read);
                yield return change;
            }
        }

        var queue = ChangeFeedSource.Create(Counted)
            .WithAttributes(Attributes.CreateInputBuffer(1, 1))
            .RunWith(Sink.Queue<Change<int, Account>>().WithAttributes(Attributes.CreateInputBuffer(1, 1)), _system.Materializer());
        var pulled = new List<int>();
        for (var i = 0; i < 3; i++)
        {
            pulled.Add((await queue.PullAsync()).Value.Key);
        }

        Assert.Equal(new[] { 0, 1, 2 }, pulled);
        Assert.InRange(Volatile.Read(ref read), 3, 6);
    }
}
