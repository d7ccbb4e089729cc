using Stellar.Store.Tests.Support;
using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// A named cursor that holds compaction back: it reads every change it has not acknowledged, whatever compactions ran,
/// across reopens and crashes; up to its bound, past which compaction goes on and the cursor is told where it stands.
/// </summary>
public sealed class ChangeFeedRetentionTests
{
    private const string Name = "items";
    private const int Keys = 60;

    public static TheoryData<int, bool> Seeds()
    {
        var data = new TheoryData<int, bool>();
        foreach (var seed in Stress.Seeds(1, 4, 40))
        {
            data.Add(seed, seed % 2 == 0);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task HoldCompaction_ACursorLaggingBehindWritesCompactionsAndReopens_ReadsEveryChangeOnceInOrder(int seed, bool encrypted)
    {
        var random = new Random(seed);
        var memory = new MemoryStorage();
        var options = Options(encrypted);

        // The oracle: every change the writes made, in the order they were acknowledged (a delete of a missing key
        // makes none), and what the cursor's consumer processed, up to each acknowledgement.
        var expected = new List<(ChangeKind Kind, int Key, int Step)>();
        var alive = new HashSet<int>();
        var processed = new List<(ChangeKind Kind, int Key, int Step)>();
        var heldCompactions = 0;

        var store = await StellarStore.OpenAsync(memory, options);
        var items = Items(store);
        await items.Feed("lagging").HoldCompactionAsync(1L << 30);
        var steps = Stress.Pick(600, 4000);
        try
        {
            for (var step = 0; step < steps; step++)
            {
                var roll = random.Next(100);
                if (roll < 45)
                {
                    var item = Item(random.Next(Keys), step, random);
                    await items.UpsertAsync(item);
                    expected.Add((ChangeKind.Put, item.Id, step));
                    alive.Add(item.Id);
                }
                else if (roll < 58)
                {
                    var key = random.Next(Keys);
                    var removed = await items.DeleteAsync(key);
                    Assert.Equal(alive.Remove(key), removed);
                    if (removed)
                    {
                        expected.Add((ChangeKind.Delete, key, -1));
                    }
                }
                else if (roll < 72)
                {
                    var keys = Enumerable.Range(0, random.Next(2, 7)).Select(_ => random.Next(Keys)).Distinct().ToList();
                    var upserts = keys.Skip(1).Select(k => Item(k, step, random)).ToList();
                    var deleted = keys[0];
                    await items.WriteAsync(b =>
                    {
                        upserts.ForEach(u => b.Upsert(u));
                        b.Delete(deleted);
                    });
                    expected.AddRange(upserts.Select(u => (ChangeKind.Put, u.Id, step)));
                    upserts.ForEach(u => alive.Add(u.Id));
                    if (alive.Remove(deleted))
                    {
                        expected.Add((ChangeKind.Delete, deleted, -1));
                    }
                }
                else if (roll < 86)
                {
                    await ConsumeAsync(items.Feed("lagging"), Math.Min(random.Next(1, 120), expected.Count - processed.Count), processed);
                }
                else if (roll < 96)
                {
                    var oldest = items.Engine.Feed.Oldest;
                    await items.CompactAsync();
                    if (items.Engine.Feed.Oldest != oldest && processed.Count < expected.Count)
                    {
                        heldCompactions++;
                    }
                }
                else
                {
                    // Reopen, after a crash or a clean close; the hold is not set again.
                    if (random.Next(2) == 0)
                    {
                        await Crash.AndAbandonAsync(memory, store, losesUnsyncedData: false);
                    }
                    else
                    {
                        await store.DisposeAsync();
                    }

                    store = await StellarStore.OpenAsync(memory, options);
                    items = Items(store);
                }
            }

            await ConsumeAsync(items.Feed("lagging"), expected.Count - processed.Count, processed);
        }
        finally
        {
            await store.DisposeAsync();
        }

        Assert.Equal(expected, processed);
        Assert.True(heldCompactions > 0, "no compaction replaced history while the cursor lagged behind");
    }

    [Fact]
    public async Task HoldCompaction_WhenTheCursorKeepsMoreThanItsBound_CompactionPassesItAndItsFeedNamesTheCursorAndTheOldestPosition()
    {
        var random = new Random(7);
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options());
        var items = Items(store);
        var cursor = items.Feed("slow");
        await cursor.HoldCompactionAsync(256 * 1024);
        var step = 0;
        for (; step < 200; step++)
        {
            await items.UpsertAsync(Item(step % Keys, step, random));
        }

        // Within the bound: the compaction leaves the history after the cursor, which reads on from its position.
        await ConsumeAsync(cursor, 50, []);
        var position = cursor.Position;
        await items.CompactAsync();
        Assert.True(items.Engine.Feed.Oldest < position);
        Assert.Equal(Enumerable.Range(50, 150), (await FeedReading.ReadAsync(cursor.Changes(), 150)).Select(c => c.Value!.Step));

        // Past it: shards of several times the bound after the cursor's position, so the compaction goes on.
        for (; step < 1200; step++)
        {
            await items.UpsertAsync(Item(step % Keys, step, random));
        }

        await items.CompactAsync();
        var error = await Assert.ThrowsAsync<ChangeFeedPositionUnavailableException>(() => FeedReading.ReadAsync(cursor.Changes(), 1));
        Assert.Equal("slow", error.Cursor);
        Assert.Equal(Name, error.Collection);
        Assert.Equal(position, error.Requested);
        Assert.Equal(items.Engine.Feed.Oldest, error.Oldest);
        Assert.True(error.Oldest.IsSnapshot);
        Assert.Contains("'slow'", error.Message, StringComparison.Ordinal);
        Assert.Equal(256 * 1024, cursor.MaxHeldBytes);

        // Acknowledging the oldest position resumes the cursor there: the snapshot, then the history after it. A cursor
        // part way through the snapshot holds it whole: a compaction would replace it, and its positions with it.
        await cursor.AcknowledgeAsync(error.Oldest);
        var snapshot = await FeedReading.ReadAsync(items.Changes("slow"), Keys);
        Assert.All(snapshot, c => Assert.True(c.Position.IsSnapshot || c == snapshot[^1]));
        await cursor.AcknowledgeAsync(snapshot[9].Position);
        for (; step < 1220; step++)
        {
            await items.UpsertAsync(Item(step % Keys, step, random));
        }

        await items.CompactAsync();
        var state = snapshot.Take(10).ToDictionary(c => c.Key, c => c.Value!.Step);
        foreach (var change in await FeedReading.ReadAsync(items.Changes("slow"), Keys - 10 + 20))
        {
            state[change.Key] = change.Value!.Step;
        }

        Assert.Equal(items.Query().ToDictionary(i => i.Id, i => i.Step), state);
    }

    [Fact]
    public async Task HoldCompaction_AfterACrashAndReopen_HoldsBeforeItsConsumerStartsAgain()
    {
        var random = new Random(11);
        var memory = new MemoryStorage();
        var store = await StellarStore.OpenAsync(memory, Options());
        var items = Items(store);
        await items.Feed("lagging").HoldCompactionAsync(1L << 30);
        for (var step = 0; step < 400; step++)
        {
            await items.UpsertAsync(Item(step % Keys, step, random));
        }

        await ConsumeAsync(items.Feed("lagging"), 150, []);
        await Crash.AndAbandonAsync(memory, store, losesUnsyncedData: false);

        // The next session compacts before it asks for the cursor: the hold stored with it is what holds.
        await using var reopened = await StellarStore.OpenAsync(memory, Options());
        items = Items(reopened);
        for (var step = 400; step < 800; step++)
        {
            await items.UpsertAsync(Item(step % Keys, step, random));
        }

        await items.CompactAsync();
        Assert.True(items.Engine.Feed.Oldest.IsSnapshot, "the compaction replaced the history the cursor acknowledged");
        var cursor = items.Feed("lagging");
        Assert.Equal(1L << 30, cursor.MaxHeldBytes);
        Assert.Equal(Enumerable.Range(150, 650), (await FeedReading.ReadAsync(cursor.Changes(), 650)).Select(c => c.Value!.Step));
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task DeleteAsyncOrReleaseCompactionAsync_OfAHoldingCursor_LetsCompactionReplaceTheHistoryItKept(bool delete)
    {
        var random = new Random(3);
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options());
        var items = Items(store);
        var cursor = items.Feed("map");
        await cursor.HoldCompactionAsync(1L << 30);
        for (var step = 0; step < 300; step++)
        {
            await items.UpsertAsync(Item(step % Keys, step, random));
        }

        // A cursor never acknowledged holds the whole history.
        await items.CompactAsync();
        Assert.Equal(ChangePosition.Start, items.Engine.Feed.Oldest);
        await ConsumeAsync(cursor, 10, []);
        var position = cursor.Position;

        if (delete)
        {
            Assert.True(await cursor.DeleteAsync());
            Assert.Equal(ChangePosition.Start, cursor.Position);
        }
        else
        {
            await cursor.ReleaseCompactionAsync();
            Assert.Equal(position, cursor.Position);
        }

        Assert.Null(cursor.MaxHeldBytes);
        await items.CompactAsync();
        Assert.True(items.Engine.Feed.Oldest.IsSnapshot, "the compaction replaced every shard");
    }

    [Fact]
    public async Task Changes_ByCursorName_ResumeAfterWhatThatCursorAcknowledged()
    {
        var random = new Random(5);
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), Options());
        var items = Items(store);
        for (var step = 0; step < 5; step++)
        {
            await items.UpsertAsync(Item(step, step, random));
        }

        await ConsumeAsync(items.Feed("analytics"), 2, []);

        Assert.Equal(new[] { 2, 3, 4 }, (await FeedReading.ReadAsync(items.Changes("analytics"), 3)).Select(c => c.Key));
        Assert.Equal(new[] { 0, 1, 2, 3, 4 }, (await FeedReading.ReadAsync(items.Changes("new"), 5)).Select(c => c.Key));
        Assert.Throws<ArgumentException>(() => items.Changes(""));
    }

    private static StoreOptions Options(bool encrypted = false) => new()
    {
        Durability = Durability.WriteThrough,
        MaxShardBytes = 64 * 1024,
        CompactionThreshold = 0,
        EncryptionKey = encrypted ? Enumerable.Range(1, 32).Select(i => (byte)i).ToArray() : null,
    };

    private static Collection<int, WorkloadItem> Items(StellarStore store) => store.GetCollection<int, WorkloadItem>(Name, i => i.Id);

    private static WorkloadItem Item(int key, int step, Random random) => new(key, Task: 0, Step: step, Payload: new string('p', random.Next(100, 1500)));

    /// <summary>
    /// Reads <paramref name="count"/> changes from the cursor and acknowledges the last one that ends a unit; what it
    /// acknowledged is processed, what follows is read again next time.
    /// </summary>
    private static async Task ConsumeAsync(ChangeFeedCursor<int, WorkloadItem> cursor, int count, List<(ChangeKind Kind, int Key, int Step)> processed)
    {
        if (count <= 0)
        {
            return;
        }

        var read = await FeedReading.ReadAsync(cursor.Changes(), count);
        var end = read.FindLastIndex(c => c.EndsUnit);
        if (end >= 0)
        {
            await cursor.AcknowledgeAsync(read[end].Position);
            processed.AddRange(read.Take(end + 1).Select(c => (c.Kind, c.Key, c.Kind == ChangeKind.Put ? c.Value!.Step : -1)));
        }
    }
}
