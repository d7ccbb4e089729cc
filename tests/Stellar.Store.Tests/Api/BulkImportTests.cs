using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>Bulk import cut short by cancellation, a crash or a bad record: what stays is a prefix of whole blocks.</summary>
public sealed class BulkImportTests
{
    private const int SourceRecords = 1_000_000;
    private const int CancelAt = SourceRecords / 2;
    private const int BeforeKey = -1;

    private static IEnumerable<Player> Source(int count, Action<int>? onRecord = null)
    {
        for (var i = 0; i < count; i++)
        {
            onRecord?.Invoke(i);
            yield return new Player(i, "p", i & 63, i);
        }
    }

    /// <summary>
    /// 1M small records, cancelled when the source reaches the halfway record; then the process dies (or the
    /// machine, keeping a random part of what was not flushed). The reopened store holds the records of a run of
    /// whole import blocks, which is a prefix of the source, each exact; and whatever was acknowledged before stays.
    /// </summary>
    [Theory]
    [InlineData(false, 0)]
    [InlineData(true, 1)]
    public async Task BulkImport_CancelledHalfwayThenCrashed_ReopenShowsAPrefixOfWholeBlocks(bool powerLoss, int seed)
    {
        var storage = new MemoryStorage();
        var store = await StellarStore.OpenAsync(storage);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(BeforeKey, "before", 1, 1));
        await store.FlushAsync();

        using var cancel = new CancellationTokenSource();
        var progress = new LastProgress();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() =>
            players.BulkImportAsync(Source(SourceRecords, i => { if (i == CancelAt) { cancel.Cancel(); } }), progress, cancel.Token));
        var acknowledged = progress.Last.Records;
        Assert.InRange(acknowledged, 1, CancelAt);
        Assert.Equal(acknowledged + 1, players.Count);

        await Crash.AndAbandonAsync(storage, store, losesUnsyncedData: powerLoss, tornTail: powerLoss ? new Random(seed) : null);

        await using var reopened = await StellarStore.OpenAsync(storage);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        Assert.Equal("before", again.Get(BeforeKey)!.Name);
        var imported = again.Count - 1;
        if (!powerLoss)
        {
            // A process crash keeps everything written to the OS, and WriteThrough wrote each block before acknowledging it.
            Assert.Equal(acknowledged, imported);
        }

        // A prefix of the source, each record exact...
        for (var i = 0; i < imported; i++)
        {
            Assert.Equal(new Player(i, "p", i & 63, i), again.Get(i));
        }

        Assert.Null(again.Get((int)imported));

        // ...made of whole blocks: the blocks on disk (after recovery cut any torn tail) hold exactly these records.
        var blocks = ShardFiles.Blocks(storage);
        Assert.Equal(again.Count, blocks.Sum(b => (long)b.Header.RecordCount));
        Assert.True(blocks.Count > 2, "the import wrote fewer blocks than the test needs");
    }

    [Fact]
    public async Task BulkImport_WhenTheKeySelectorThrowsMidway_FailsWithItAndKeepsAPrefixOfWholeBlocks()
    {
        const int BadAt = 30_000;
        var storage = new MemoryStorage();
        var bad = new InvalidOperationException("no key for this one");
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Level == -1 ? throw bad : p.Id);
            var source = Source(50_000).Select(p => p.Id == BadAt ? p with { Level = -1 } : p);

            var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => players.BulkImportAsync(source));

            Assert.Same(bad, thrown);
            AssertPrefixBelow(players, BadAt, storage);
            await players.InsertAsync(new Player(BadAt, "later", 1, 1)); // the collection still works
        }

        await using var reopened = await StellarStore.OpenAsync(storage);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        AssertPrefixBelow(again, BadAt, storage, extra: 1);
        Assert.Equal("later", again.Get(BadAt)!.Name);
    }

    [Fact]
    public async Task BulkImport_WhenARecordIsNullMidway_ThrowsArgumentNullAndKeepsAPrefixOfWholeBlocks()
    {
        const int BadAt = 30_000;
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { Compression = Compression.Lz4 }))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var source = Source(50_000).Select(p => p.Id == BadAt ? null! : p);

            await Assert.ThrowsAsync<ArgumentNullException>(() => players.BulkImportAsync(source));

            AssertPrefixBelow(players, BadAt, storage);
        }

        await using var reopened = await StellarStore.OpenAsync(storage);
        AssertPrefixBelow(reopened.GetCollection<int, Player>("players", p => p.Id), BadAt, storage);
    }

    [Fact]
    public async Task BulkImport_WhenTheKeySelectorReturnsNullMidway_FailsAsAnInsertOfThatRecordDoesAndKeepsAPrefixOfWholeBlocks()
    {
        const int BadAt = 30_000;
        var storage = new MemoryStorage();
        await using var store = await StellarStore.OpenAsync(storage);
        var players = store.GetCollection<string, Player>("players", p => p.Name);
        var source = Source(50_000).Select(p => p with { Name = p.Id == BadAt ? null! : $"p{p.Id}" });

        // The oracle: what the same record gets from a single insert, which names the key selector.
        var single = await Assert.ThrowsAsync<ArgumentException>(() => players.InsertAsync(new Player(BadAt, null!, 1, 1)));
        var thrown = await Assert.ThrowsAsync<ArgumentException>(() => players.BulkImportAsync(source));

        Assert.Equal(single.Message, thrown.Message);
        var stored = players.Query().Select(p => p.Id).Order().ToList();
        Assert.Equal(Enumerable.Range(0, stored.Count), stored);
        Assert.InRange(stored.Count, 0, BadAt);
    }

    [Fact]
    public async Task BulkImport_FromAnAsyncSourceThatFails_KeepsAPrefixOfWholeBlocks()
    {
        const int FailAt = 20_000;
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await Assert.ThrowsAsync<IOException>(() => players.BulkImportAsync(FailingSource(FailAt)));
            AssertPrefixBelow(players, FailAt, storage);
        }

        await using var reopened = await StellarStore.OpenAsync(storage);
        AssertPrefixBelow(reopened.GetCollection<int, Player>("players", p => p.Id), FailAt, storage);
    }

    private static async IAsyncEnumerable<Player> FailingSource(int failAt)
    {
        for (var i = 0; ; i++)
        {
            if (i == failAt)
            {
                throw new IOException("the source broke");
            }

            if (i % 1000 == 0)
            {
                await Task.Yield();
            }

            yield return new Player(i, "p", i & 63, i);
        }
    }

    /// <summary>
    /// The collection holds records 0..n-1 of the source for some n at most <paramref name="limit"/> (plus
    /// <paramref name="extra"/> written after), exactly as many as the whole blocks on disk hold.
    /// </summary>
    private static void AssertPrefixBelow(Collection<int, Player> players, int limit, MemoryStorage storage, int extra = 0)
    {
        var imported = players.Count - extra;
        Assert.InRange(imported, 1, limit);
        Assert.Equal(imported, players.Query(p => p.Id < limit).LongCount());
        for (var i = 0; i < imported; i++)
        {
            Assert.Equal(new Player(i, "p", i & 63, i), players.Get(i));
        }

        Assert.Equal(players.Count, ShardFiles.Blocks(storage).Sum(b => (long)b.Header.RecordCount));
    }

    private sealed class LastProgress : IProgress<BulkImportProgress>
    {
        public BulkImportProgress Last { get; private set; } = new(0, 0);

        public void Report(BulkImportProgress value) => Last = value;
    }
}
