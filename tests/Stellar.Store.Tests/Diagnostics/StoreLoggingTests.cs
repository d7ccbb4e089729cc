using Akka.Event;
using Microsoft.Extensions.Logging;
using LogLevel = Microsoft.Extensions.Logging.LogLevel;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Diagnostics;

/// <summary>
/// The events a store logs through <see cref="StoreOptions.LoggerFactory"/>, captured with their ids and values and held
/// against what the test made happen: a tail it tore, a failure it injected, the fsyncs the storage counted.
/// </summary>
public sealed class StoreLoggingTests : IDisposable
{
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(1);

    private readonly TempDirectory _dir = new();
    private readonly CapturingLoggerProvider _logs = new();
    private readonly ILoggerFactory _factory;

    public StoreLoggingTests() => _factory = _logs.CreateFactory();

    public void Dispose()
    {
        _factory.Dispose();
        _dir.Dispose();
    }

    private static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    [Fact]
    public async Task Open_WhenTheActiveShardHasATornTail_LogsTheBytesAndTheShardFileItCutAndCountsARepairedRecovery()
    {
        using var meters = new TestMeterFactory();
        using var recorder = new MetricRecorder(meters);
        var options = new StoreOptions { LoggerFactory = _factory, MeterFactory = meters };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = Players(store);
            for (var i = 0; i < 10; i++)
            {
                await players.InsertAsync(new Player(i, $"p{i}", 1, i));
            }
        }

        Assert.Empty(_logs.WithId(StoreLogEvents.TornTailsCut));

        // A crash in the middle of an append: part of a block, and nothing after it.
        var shard = Assert.Single(Directory.GetFiles(_dir.Path, "*.shard"));
        var torn = new byte[100];
        new Random(7).NextBytes(torn);
        using (var file = new FileStream(shard, FileMode.Append))
        {
            file.Write(torn);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            Assert.Equal(torn.Length, store.Recovery.TruncatedBytes);
            Assert.Equal(10L, Players(store).Count);
        }

        var cut = Assert.Single(_logs.WithId(StoreLogEvents.TornTailsCut));
        Assert.Equal(LogLevel.Warning, cut.Level);
        Assert.Equal(StoreTelemetry.LoggerCategory, cut.Category);
        Assert.Equal(nameof(StoreLogEvents.TornTailsCut), cut.EventId.Name);
        Assert.Equal((long)torn.Length, cut.Values["TruncatedBytes"]);
        Assert.Contains(Path.GetFileName(shard), cut.Message, StringComparison.Ordinal);
        Assert.Equal(2, _logs.WithId(StoreLogEvents.StoreOpened).Count);
        Assert.Equal(2, _logs.WithId(StoreLogEvents.StoreClosed).Count);

        var recoveries = recorder.Of("stellar.store.recoveries");
        Assert.Equal(["clean", "repaired"], recoveries.Select(r => (string?)r.Tag("result")));
    }

    [Fact]
    public async Task Write_WhenStorageFaultsTheCollection_LogsTheFaultOnceWithTheExceptionItsWritesFailWith()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage());
        var store = await StellarStore.OpenAsync(storage, new StoreOptions { LoggerFactory = _factory });
        try
        {
            var players = Players(store);
            await players.InsertAsync(new Player(1, "kept", 1, 10));
            Assert.Empty(_logs.WithId(StoreLogEvents.CollectionFaulted));

            storage.FailAppendAt = storage.AppendCount + 1;
            var failed = await Assert.ThrowsAsync<StoreFaultedException>(() => players.InsertAsync(new Player(2, "lost", 2, 20)));
            await Assert.ThrowsAsync<StoreFaultedException>(() => players.InsertAsync(new Player(3, "refused", 3, 30)));

            var fault = Assert.Single(_logs.WithId(StoreLogEvents.CollectionFaulted));
            Assert.Equal(LogLevel.Error, fault.Level);
            Assert.Equal("players", fault.Values["Collection"]);
            Assert.Same(failed, fault.Exception);
        }
        finally
        {
            // The faulted collection cannot flush at close.
            await Record.ExceptionAsync(() => store.DisposeAsync().AsTask());
        }
    }

    [Fact]
    public async Task Fsync_AtTheSlowThreshold_IsLoggedWithItsShardFileEachTimeAndNeverWithAnInfiniteThreshold()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage());
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { LoggerFactory = _factory, Durability = Durability.Fsync, SlowFsyncThreshold = TimeSpan.Zero }))
        {
            var players = Players(store);
            var flushesBefore = storage.FlushCount;
            var loggedBefore = _logs.WithId(StoreLogEvents.SlowFsync).Count;
            for (var i = 0; i < 3; i++)
            {
                await players.InsertAsync(new Player(i, $"p{i}", 1, i));
            }

            var slow = _logs.WithId(StoreLogEvents.SlowFsync).Skip(loggedBefore).ToList();
            Assert.Equal(storage.FlushCount - flushesBefore, slow.Count);
            Assert.Equal(3, slow.Count);
            var shard = Assert.Single(storage.List(), name => name.EndsWith(".shard", StringComparison.Ordinal));
            Assert.All(slow, log =>
            {
                Assert.Equal(LogLevel.Warning, log.Level);
                Assert.Equal(shard, log.Values["File"]);
                Assert.Equal("players", log.Values["Collection"]);
            });
        }

        var quiet = new CapturingLoggerProvider();
        using var quietFactory = quiet.CreateFactory();
        await using (var store = await StellarStore.OpenAsync(new MemoryStorage(), new StoreOptions { LoggerFactory = quietFactory, Durability = Durability.Fsync, SlowFsyncThreshold = Timeout.InfiniteTimeSpan }))
        {
            await Players(store).InsertAsync(new Player(1, "p", 1, 1));
        }

        Assert.Empty(quiet.WithId(StoreLogEvents.SlowFsync));
        Assert.NotEmpty(quiet.WithId(StoreLogEvents.StoreOpened));
    }

    [Fact]
    public async Task ActorSystemLog_OfTheSystemTheStoreMade_GoesToTheLoggerFactory()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), new StoreOptions { LoggerFactory = _factory });
        var marker = $"marker-{Guid.NewGuid():N}";
        store.ActorSystem.Log.Warning("A warning with {0}", marker);

        // The actor system's logger runs on its own: wait for the event, not for a time.
        var deadline = DateTime.UtcNow + HangTimeout;
        CapturedLog? forwarded = null;
        while (forwarded is null && DateTime.UtcNow < deadline)
        {
            forwarded = _logs.WithId(StoreLogEvents.ActorSystemLog).FirstOrDefault(l => l.Message.Contains(marker, StringComparison.Ordinal));
            await Task.Delay(10);
        }

        Assert.NotNull(forwarded);
        Assert.Equal(StoreTelemetry.AkkaLoggerCategory, forwarded.Category);
        Assert.Equal(LogLevel.Warning, forwarded.Level);
    }
}
