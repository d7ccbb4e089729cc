using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Diagnostics;

/// <summary>
/// The store's traces, and what a compaction reports of itself. Each test runs under a root activity of its own and
/// keeps only the store's activities of that trace, so the stores other tests open meanwhile do not count; its meters
/// and loggers are its own too.
/// </summary>
public sealed class StoreTracingTests : IDisposable
{
    // By name, not by reference: the listener asks about every source as it is added, and reading the field from that
    // callback would create the source in the middle of it, unheard.
    private const string TestSourceName = "Stellar.Store.Tests.Tracing";

    private static readonly ActivitySource TestSource = new(TestSourceName);

    private readonly TempDirectory _dir = new();
    private readonly ActivityListener _listener;
    private readonly List<Activity> _stopped = new();
    private readonly TestMeterFactory _meters = new();
    private readonly MetricRecorder _recorder;
    private readonly CapturingLoggerProvider _logs = new();
    private readonly ILoggerFactory _factory;

    public StoreTracingTests()
    {
        _recorder = new MetricRecorder(_meters);
        _factory = _logs.CreateFactory();
        _listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name is StoreTelemetry.ActivitySourceName or TestSourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity =>
            {
                lock (_stopped)
                {
                    _stopped.Add(activity);
                }
            },
        };
        ActivitySource.AddActivityListener(_listener);
    }

    public void Dispose()
    {
        _listener.Dispose();
        _recorder.Dispose();
        _meters.Dispose();
        _factory.Dispose();
        _dir.Dispose();
    }

    private static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    private List<Activity> StoreActivities(Activity root, string name)
    {
        lock (_stopped)
        {
            return _stopped.Where(a => a.TraceId == root.TraceId && a.Source.Name == StoreTelemetry.ActivitySourceName && a.OperationName == name).ToList();
        }
    }

    private static async Task RewriteAsync(Collection<int, Player> players, int keys, int rounds)
    {
        for (var round = 0; round < rounds; round++)
        {
            await players.WriteAsync(b =>
            {
                for (var i = 0; i < keys; i++)
                {
                    b.Upsert(new Player(i, $"player-{i}-round-{round}-{new string('x', 40)}", round, i));
                }
            });
        }
    }

    [Fact]
    public async Task OpenAsync_UnderATrace_IsTracedWithItsPathAndWhatRecoveryVerifiedAndAFailedOpenIsMarked()
    {
        var key = Enumerable.Range(0, 32).Select(i => (byte)i).ToArray();
        RecoveryReport recovery;
        using (var root = TestSource.StartActivity("test")!)
        {
            await using (var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { EncryptionKey = key }))
            {
                var players = Players(store);
                for (var i = 0; i < 3; i++)
                {
                    await players.InsertAsync(new Player(i, "p", 1, i));
                }
            }

            await using (var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { EncryptionKey = key }))
            {
                recovery = store.Recovery;
            }

            await Assert.ThrowsAsync<WrongKeyException>(() => StellarStore.OpenAsync(_dir.Path, new StoreOptions { EncryptionKey = new byte[32] }));
            root.Stop();

            var opens = StoreActivities(root, "stellar.store.open");
            Assert.Equal(3, opens.Count);
            Assert.All(opens, open => Assert.Equal(Path.GetFullPath(_dir.Path), open.GetTagItem("stellar.store.path")));
            Assert.True(recovery.BlocksVerified > 0);
            Assert.Equal(recovery.BlocksVerified, opens[1].GetTagItem("stellar.store.blocks_verified"));
            Assert.Equal(ActivityStatusCode.Unset, opens[1].Status);
            Assert.Equal(ActivityStatusCode.Error, opens[2].Status);
        }
    }

    [Fact]
    public async Task CheckpointAsync_UnderATrace_IsTracedWithItsNameAndTheBytesItSharedAndCopied()
    {
        using var root = TestSource.StartActivity("test")!;
        CheckpointInfo checkpoint;
        await using (var store = await StellarStore.OpenAsync(_dir.Sub("store"), new StoreOptions { MaxShardBytes = 64 * 1024 }))
        {
            await RewriteAsync(Players(store), keys: 300, rounds: 3);
            checkpoint = await store.CheckpointAsync("traced");
        }

        root.Stop();
        var traced = Assert.Single(StoreActivities(root, "stellar.store.checkpoint"));
        Assert.Equal("traced", traced.GetTagItem("stellar.store.checkpoint.name"));
        Assert.Equal(checkpoint.SharedBytes, traced.GetTagItem("stellar.store.checkpoint.shared_bytes"));
        Assert.Equal(checkpoint.CopiedBytes, traced.GetTagItem("stellar.store.checkpoint.copied_bytes"));
        Assert.Equal(ActivityStatusCode.Unset, traced.Status);
    }

    [Fact]
    public async Task CompactAsync_WhenItRewritesShards_IsTracedCountedAndLoggedWithTheBytesBeforeAndAfter()
    {
        using var root = TestSource.StartActivity("test")!;
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), new StoreOptions
        {
            LoggerFactory = _factory, MeterFactory = _meters, CompactionThreshold = 0, MaxShardBytes = 64 * 1024,
        });
        var players = Players(store);
        await RewriteAsync(players, keys: 300, rounds: 3);
        var before = players.Statistics.StoredBytes;

        await players.CompactAsync();
        var after = players.Statistics.StoredBytes;
        root.Stop();

        Assert.Equal(1, players.Statistics.Compactions);
        Assert.True(after < before, $"{after} bytes stored after the compaction, {before} before");
        var traced = Assert.Single(StoreActivities(root, "stellar.store.compaction"));
        Assert.Equal("players", traced.GetTagItem("collection"));
        Assert.Equal(before, traced.GetTagItem("stellar.store.stored_bytes.before"));
        Assert.Equal(after, traced.GetTagItem("stellar.store.stored_bytes.after"));

        var counted = Assert.Single(_recorder.Of("stellar.store.compactions"));
        Assert.Equal("completed", counted.Tag("outcome"));
        Assert.Equal("players", counted.Tag("collection"));

        var started = Assert.Single(_logs.WithId(StoreLogEvents.CompactionStarted));
        Assert.Equal(before, started.Values["StoredBytes"]);
        var finished = Assert.Single(_logs.WithId(StoreLogEvents.CompactionFinished));
        Assert.Equal(before, finished.Values["StoredBytesBefore"]);
        Assert.Equal(after, finished.Values["StoredBytesAfter"]);
        Assert.Empty(_logs.WithId(StoreLogEvents.CompactionFailed));
    }

    [Fact]
    public async Task CompactAsync_WhenItsOutputCannotBeRenamed_LogsCountsAndMarksTheFailure()
    {
        using var root = TestSource.StartActivity("test")!;
        var storage = new FaultInjectingStorage(new MemoryStorage());
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions
        {
            LoggerFactory = _factory, MeterFactory = _meters, CompactionThreshold = 0, MaxShardBytes = 64 * 1024,
        });
        var players = Players(store);
        await RewriteAsync(players, keys: 300, rounds: 3);

        // Only a compaction renames (its finished output into place).
        storage.FailRenameAt = storage.RenameCount + 1;
        var error = await Assert.ThrowsAsync<IOException>(() => players.CompactAsync());
        root.Stop();

        var failed = Assert.Single(_logs.WithId(StoreLogEvents.CompactionFailed));
        Assert.Equal(LogLevel.Error, failed.Level);
        Assert.Same(error, failed.Exception);
        Assert.Empty(_logs.WithId(StoreLogEvents.CompactionFinished));
        Assert.Equal("failed", Assert.Single(_recorder.Of("stellar.store.compactions")).Tag("outcome"));
        Assert.Equal(ActivityStatusCode.Error, Assert.Single(StoreActivities(root, "stellar.store.compaction")).Status);
    }
}
