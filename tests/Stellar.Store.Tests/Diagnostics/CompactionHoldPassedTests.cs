using Microsoft.Extensions.Logging;
using Stellar.Store.Format;
using Stellar.Store.TestHost.Workload;
using Stellar.Store.Tests.Feed;

namespace Stellar.Store.Tests.Diagnostics;

/// <summary>
/// A compaction that passes a cursor's hold (keeping the cursor's history would take more shard bytes than its bound) is
/// logged and counted, naming the collection, the cursor and the bytes; a hold that another cursor's hold covers is not
/// passed. The oracle for the bytes is the storage's own listing of the collection's shard files.
/// </summary>
public sealed class CompactionHoldPassedTests : IDisposable
{
    private const string Instrument = "stellar.store.compaction.holds_passed";

    private readonly TestMeterFactory _meters = new();
    private readonly MetricRecorder _recorder;
    private readonly CapturingLoggerProvider _logs = new();
    private readonly ILoggerFactory _factory;

    public CompactionHoldPassedTests()
    {
        _recorder = new MetricRecorder(_meters);
        _factory = _logs.CreateFactory();
    }

    public void Dispose()
    {
        _factory.Dispose();
        _recorder.Dispose();
        _meters.Dispose();
    }

    [Fact]
    public async Task CompactAsync_PastAHoldsBound_LogsAndCountsEachPassedCursorWithItsBytesButNotAHoldAnotherCovers()
    {
        var random = new Random(5);
        var memory = new MemoryStorage();
        await using var store = await StellarStore.OpenAsync(memory, new StoreOptions
        {
            Durability = Durability.WriteThrough,
            MaxShardBytes = 64 * 1024,
            CompactionThreshold = 0,
            LoggerFactory = _factory,
            MeterFactory = _meters,
        });
        var items = store.GetCollection<int, WorkloadItem>("items", i => i.Id);
        var step = 0;
        for (; step < 300; step++)
        {
            await items.UpsertAsync(Item(step, random));
        }

        var itemsId = ShardFiles(memory).Select(f => f.CollectionId).Distinct().Single();
        var positions = await FeedReading.ReadPositionsAsync(items, 300);

        // A cursor a third of the way in holds with room to spare; cursors further on hold with a bound they pass. The
        // first one's hold keeps their history too: the compaction replaces only what all of them acknowledged.
        var patient = items.Feed("patient");
        await patient.AcknowledgeAsync(positions[100]);
        await patient.HoldCompactionAsync(1L << 30);
        var lagging = items.Feed("lagging");
        await lagging.AcknowledgeAsync(positions[200]);
        await lagging.HoldCompactionAsync(1);
        var straggler = items.Feed("straggler");
        await straggler.AcknowledgeAsync(positions[150]);
        await straggler.HoldCompactionAsync(1);
        await items.CompactAsync();
        Assert.True(items.Engine.Feed.Oldest.IsSnapshot, "the compaction did not replace the shards before the patient cursor");
        Assert.Empty(_logs.WithId(StoreLogEvents.CompactionHoldPassed));
        Assert.Empty(_recorder.Of(Instrument));

        // Without that hold the next compaction passes theirs, and that of a new cursor at the start, which would keep
        // every shard file of the collection.
        await patient.ReleaseCompactionAsync();
        var fresh = items.Feed("fresh");
        await fresh.HoldCompactionAsync(1024);
        for (; step < 350; step++)
        {
            await items.UpsertAsync(Item(step, random));
        }

        var allShardBytes = ShardFiles(memory).Where(f => f.CollectionId == itemsId).Sum(f => (long)memory.ReadAllBytes(f.Name).Length);
        await items.CompactAsync();

        var passed = _logs.WithId(StoreLogEvents.CompactionHoldPassed).ToDictionary(l => (string)l.Values["Cursor"]!);
        Assert.Equal(["fresh", "lagging", "straggler"], passed.Keys.Order());
        foreach (var (cursor, log) in passed)
        {
            Assert.Equal(LogLevel.Warning, log.Level);
            Assert.Equal(nameof(StoreLogEvents.CompactionHoldPassed), log.EventId.Name);
            Assert.Equal("items", log.Values["Collection"]);
            Assert.Contains($"cursor {cursor}", log.Message, StringComparison.Ordinal);
        }

        Assert.Equal(ChangePosition.Start.ToString(), passed["fresh"].Values["Position"]);
        Assert.Equal(allShardBytes, passed["fresh"].Values["HeldBytes"]);
        Assert.Equal(1024L, passed["fresh"].Values["MaxHeldBytes"]);
        foreach (var (cursor, position) in new[] { ("lagging", positions[200]), ("straggler", positions[150]) })
        {
            Assert.Equal(position.ToString(), passed[cursor].Values["Position"]);
            Assert.Equal(1L, passed[cursor].Values["MaxHeldBytes"]);
            Assert.InRange((long)passed[cursor].Values["HeldBytes"]!, 2, allShardBytes);
        }

        // A cursor further on keeps no more than one behind it.
        Assert.True((long)passed["lagging"].Values["HeldBytes"]! <= (long)passed["straggler"].Values["HeldBytes"]!);

        var counted = _recorder.Of(Instrument);
        Assert.All(counted, m => Assert.Equal(("items", "{hold}", 1.0), ((string?)m.Tag("collection"), m.Unit, m.Value)));
        Assert.Equal(["fresh", "lagging", "straggler"], counted.Select(m => (string)m.Tag("cursor")!).Order());
    }

    private static WorkloadItem Item(int step, Random random) => new(step % 60, Task: 0, Step: step, Payload: new string('p', random.Next(100, 1500)));

    private static List<(string Name, uint CollectionId)> ShardFiles(MemoryStorage storage) =>
        storage.List()
            .Where(name => !StoreFileNames.IsCompacting(name))
            .Select(name => (Name: name, Parsed: StoreFileNames.TryParseShard(name, out var id, out _), Id: id))
            .Where(f => f.Parsed)
            .Select(f => (f.Name, f.Id))
            .ToList();
}
