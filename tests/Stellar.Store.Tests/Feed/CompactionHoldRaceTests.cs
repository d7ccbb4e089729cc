using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// A hold set while compactions start: once <see cref="ChangeFeedCursor{TKey,TValue}.HoldCompactionAsync"/> completed,
/// every compaction that begins after it keeps the history after the cursor's position, also one that was asked for
/// before and begins after.
/// </summary>
public sealed class CompactionHoldRaceTests
{
    private const string Name = "items";
    private const int Keys = 40;

    /// <summary>A wait that does not end in this long is a hang, reported as a failure rather than waited out.</summary>
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task HoldCompactionAsync_WhileACompactionWaitsBehindAWriteToBegin_HoldsThatCompaction()
    {
        var random = new Random(17);
        var storage = new HeldCollectionStorage(new MemoryStorage());
        await using var store = await StellarStore.OpenAsync(storage, Options());
        var items = Items(store);
        for (var step = 0; step < 200; step++)
        {
            await items.UpsertAsync(Item(step % Keys, step, random));
        }

        var itemsId = storage.OnlyCollection();
        var cursor = items.Feed("late");
        await cursor.AcknowledgeAsync(items.Engine.Feed.End);

        // The collection's writer stalls in the append of a write, and a compaction asked for now waits behind it: it
        // was asked for before the hold, and begins after the hold completed.
        storage.Hold(itemsId);
        var write = items.UpsertAsync(Item(1, 200, random));
        await storage.AppendWaiting.WaitAsync(HangGuard);
        var compaction = items.CompactAsync();
        await WaitUntilAsync(() => items.Writer.QueuedWrites >= 2);
        await cursor.HoldCompactionAsync(1L << 30);
        storage.Release();
        await write.WaitAsync(HangGuard);
        await compaction.WaitAsync(HangGuard);

        Assert.True(items.Engine.Feed.Oldest.IsSnapshot, "the compaction did not replace the shards before the cursor's position");
        var read = await FeedReading.ReadAsync(cursor.Changes(), 1);
        Assert.Equal(200, Assert.Single(read).Value!.Step);
    }

    public static TheoryData<int> Seeds() => new(Stress.Seeds(1, 2, 20));

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task HoldCompactionAsync_RacingCompactionsBackToBack_HoldsEveryCompactionThatBeginsAfterItCompleted(int seed)
    {
        var random = new Random(seed);
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options());
        var items = Items(store);
        var cursor = items.Feed("racer");
        var step = 0;
        var replaced = 0;
        var rounds = Stress.Pick(12, 150);
        for (var round = 0; round < rounds; round++)
        {
            // Without a hold, history the cursor has processed whole: compactions may replace all of it.
            await cursor.ReleaseCompactionAsync();
            for (var i = random.Next(5, 60); i > 0; i--, step++)
            {
                await items.UpsertAsync(Item(step % Keys, step, random));
            }

            await cursor.AcknowledgeAsync(items.Engine.Feed.End);

            // Compactions run back to back from before the hold until after the writes that follow it. One that began
            // before the hold completed replaces only what was written before; every later one keeps what follows.
            var oldest = items.Engine.Feed.Oldest;
            using var stop = new CancellationTokenSource();
            var compacting = Task.Run(async () =>
            {
                while (!stop.IsCancellationRequested)
                {
                    await items.CompactAsync();
                }
            });
            await Task.Delay(random.Next(3));
            await cursor.HoldCompactionAsync(1L << 30);
            var expected = new List<int>();
            for (var i = random.Next(5, 60); i > 0; i--, step++)
            {
                await items.UpsertAsync(Item(step % Keys, step, random));
                expected.Add(step);
            }

            await stop.CancelAsync();
            await compacting.WaitAsync(HangGuard);
            await items.CompactAsync();
            if (items.Engine.Feed.Oldest != oldest)
            {
                replaced++;
            }

            var read = await FeedReading.ReadAsync(cursor.Changes(), expected.Count);
            Assert.Equal(expected, read.Select(c => c.Value!.Step));
        }

        Assert.True(replaced > 0, "no compaction replaced history during the rounds");
    }

    private static StoreOptions Options() => new()
    {
        Durability = Durability.WriteThrough,
        MaxShardBytes = 64 * 1024,
        CompactionThreshold = 0,
    };

    private static Collection<int, WorkloadItem> Items(StellarStore store) => store.GetCollection<int, WorkloadItem>(Name, i => i.Id);

    private static WorkloadItem Item(int key, int step, Random random) => new(key, Task: 0, Step: step, Payload: new string('p', random.Next(100, 1500)));

    private static async Task WaitUntilAsync(Func<bool> condition)
    {
        using var guard = new CancellationTokenSource(HangGuard);
        while (!condition())
        {
            await Task.Delay(1, guard.Token);
        }
    }
}
