using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Diagnostics;

/// <summary>
/// The store's instruments, heard through a meter factory of the test's own: each test's oracle is its own count of
/// what it wrote, the storage's count of the fsyncs it was asked for, or what the collection reports of itself.
/// </summary>
public sealed class StoreMetricsTests : IDisposable
{
    private readonly TestMeterFactory _meters = new();
    private readonly MetricRecorder _recorder;

    public StoreMetricsTests() => _recorder = new MetricRecorder(_meters);

    public void Dispose()
    {
        _recorder.Dispose();
        _meters.Dispose();
    }

    private static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    private static Player Numbered(int id, string name = "p") => new(id, $"{name}-{id}", id % 10, id * 100L);

    private double Sum(string instrument, string kind) =>
        _recorder.Of(instrument).Where(m => (string?)m.Tag("collection") == "players" && (string?)m.Tag("kind") == kind).Sum(m => m.Value);

    [Fact]
    public async Task Writes_OfAKnownWorkload_AreCountedByKindWithTheBytesTheCollectionStoresAndOneGroupFsyncAndCommitEach()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage());
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions { MeterFactory = _meters, Durability = Durability.Fsync, CompactionThreshold = 0 });
        var players = Players(store);
        var flushesBefore = storage.FlushCount;
        var timedBefore = _recorder.Of("stellar.store.fsync.duration").Count;

        // Each awaited write is a group of its own; the batch is one group of seven records.
        for (var i = 1; i <= 20; i++)
        {
            await players.InsertAsync(Numbered(i));
        }

        for (var i = 1; i <= 6; i++)
        {
            await players.UpdateAsync(Numbered(i, "updated"));
        }

        for (var i = 18; i <= 21; i++)
        {
            await players.UpsertAsync(Numbered(i, "upserted"));
        }

        for (var i = 7; i <= 9; i++)
        {
            Assert.True(await players.DeleteAsync(i));
        }

        await players.WriteAsync(b =>
        {
            for (var i = 30; i < 35; i++)
            {
                b.Upsert(Numbered(i));
            }

            b.Delete(10).Delete(11);
        });

        var fsyncs = storage.FlushCount - flushesBefore;
        Assert.Equal(20, Sum("stellar.store.writes", "insert"));
        Assert.Equal(6, Sum("stellar.store.writes", "update"));
        Assert.Equal(9, Sum("stellar.store.writes", "upsert"));
        Assert.Equal(5, Sum("stellar.store.writes", "delete"));
        Assert.All(_recorder.Of("stellar.store.writes"), m => Assert.Equal("{write}", m.Unit));

        // Nothing was compacted or rewritten: the bytes written are the bytes the collection stores.
        var bytes = new[] { "insert", "update", "upsert", "delete" }.Sum(kind => Sum("stellar.store.write.bytes", kind));
        Assert.Equal(players.Statistics.StoredBytes, bytes);
        Assert.All(new[] { "insert", "update", "upsert", "delete" }, kind => Assert.True(Sum("stellar.store.write.bytes", kind) > 0, kind));

        var groups = _recorder.Of("stellar.store.commit.group_size");
        Assert.Equal(34, groups.Count);
        Assert.Equal(40, groups.Sum(g => g.Value));
        Assert.Equal(7, groups.Max(g => g.Value));
        Assert.Equal(34, _recorder.Of("stellar.store.commit.duration").Count);
        Assert.All(_recorder.Of("stellar.store.commit.duration"), m => Assert.Equal("s", m.Unit));

        // Fsync mode: at least one fsync per group, each timed.
        Assert.True(fsyncs >= 34, $"{fsyncs} fsyncs for 34 groups");
        var timed = _recorder.Of("stellar.store.fsync.duration").Skip(timedBefore).ToList();
        Assert.Equal(fsyncs, timed.Count);
        Assert.All(timed, m => Assert.Equal("players", m.Tag("collection")));
    }

    [Fact]
    public async Task QueueGauges_WhileTheDiskStalls_ReportTheWritesWaitingAndNoneOnceTheyAreStored()
    {
        var storage = new HeldAppendStorage();
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions { MeterFactory = _meters });
        var players = Players(store);
        await players.InsertAsync(Numbered(0));

        storage.Hold();
        var pending = Enumerable.Range(1, 5).Select(i => players.InsertAsync(Numbered(i))).ToList();
        try
        {
            Assert.Equal(5, _recorder.Observe("stellar.store.queue.depth").Single(m => (string?)m.Tag("collection") == "players").Value);
            Assert.True(_recorder.Observe("stellar.store.queue.bytes").Single(m => (string?)m.Tag("collection") == "players").Value > 0);
        }
        finally
        {
            storage.Release();
            await Task.WhenAll(pending);
        }

        Assert.Equal(0, _recorder.Observe("stellar.store.queue.depth").Single(m => (string?)m.Tag("collection") == "players").Value);
        Assert.Equal(0, _recorder.Observe("stellar.store.queue.bytes").Single(m => (string?)m.Tag("collection") == "players").Value);
    }

    [Fact]
    public async Task CollectionGauges_AfterRewritesAndDeletes_ReportTheCollectionsStoredAndLiveBytesUntilTheStoreCloses()
    {
        var store = await StellarStore.OpenAsync(new MemoryStorage(), new StoreOptions { MeterFactory = _meters, CompactionThreshold = 0 });
        var players = Players(store);
        await using (store)
        {
            for (var round = 0; round < 2; round++)
            {
                await players.WriteAsync(b =>
                {
                    for (var i = 0; i < 50; i++)
                    {
                        b.Upsert(Numbered(i, $"round{round}"));
                    }
                });
            }

            await players.WriteAsync(b => Enumerable.Range(0, 10).ToList().ForEach(i => b.Delete(i)));

            var stored = _recorder.Observe("stellar.store.collection.stored_bytes").Single(m => (string?)m.Tag("collection") == "players");
            var live = _recorder.Observe("stellar.store.collection.live_bytes").Single(m => (string?)m.Tag("collection") == "players");
            Assert.Equal(players.Statistics.StoredBytes, stored.Value);
            Assert.Equal(players.Statistics.LiveBytes, live.Value);
            Assert.True(live.Value < stored.Value / 2, $"live {live.Value} of {stored.Value} stored after a full rewrite");
            Assert.Equal("By", stored.Unit);
        }

        Assert.Empty(_recorder.Observe("stellar.store.collection.stored_bytes"));
    }
}
