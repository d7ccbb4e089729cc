using Xunit.Abstractions;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Engine;

public sealed class CompactionTests(ITestOutputHelper output) : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    private static async Task WriteRoundAsync(Collection<int, Player> players, int keys, int round)
    {
        for (var start = 0; start < keys; start += 500)
        {
            await players.WriteAsync(b =>
            {
                for (var i = start; i < Math.Min(start + 500, keys); i++)
                {
                    b.Upsert(new Player(i, $"player-{i}-round-{round}", round, (long)i * round));
                }
            });
        }
    }

    private static long ShardBytes(string path) => Directory.GetFiles(path, "*.shard*").Sum(f => new FileInfo(f).Length);

    [Fact]
    public async Task CompactAsync_CopiesOnAThreadOfItsOwn_SoTheWritesKeepThePoolsThreads()
    {
        // A copy of a large collection takes long; on pool threads it left the writes' continuations none on 2 cores,
        // and every write waited until the pool grew.
        var storage = new PoolWatchingStorage(_dir.Path);
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions { CompactionThreshold = 0 });
        var players = Players(store);
        for (var round = 1; round <= 3; round++)
        {
            await WriteRoundAsync(players, 3_000, round);
        }

        storage.Watching = true;
        await players.CompactAsync();
        storage.Watching = false;

        Assert.True(storage.AppendsOffPool > 0, "the compaction wrote its output");
        Assert.Equal(0, storage.AppendsOnPool);
        Assert.Equal(3_000, players.Count);
        Assert.Equal("player-7-round-3", players.Get(7)!.Name);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task CompactAsync_AfterTenRewritesOfTenThousandKeys_FilesTakeAtMostTwiceOneCopy(bool compressedAndEncrypted)
    {
        var options = new StoreOptions
        {
            CompactionThreshold = 0, // only the explicit compaction below
            Compression = compressedAndEncrypted ? Compression.Lz4 : Compression.None,
            EncryptionKey = compressedAndEncrypted ? Enumerable.Range(0, 32).Select(i => (byte)i).ToArray() : null,
        };
        var once = _dir.Sub("once");
        await using (var store = await StellarStore.OpenAsync(once, options))
        {
            await WriteRoundAsync(Players(store), 10_000, 10);
        }

        var path = _dir.Sub("rewritten");
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            var players = Players(store);
            for (var round = 1; round <= 10; round++)
            {
                await WriteRoundAsync(players, 10_000, round);
            }

            Assert.True(players.Statistics.StoredBytes >= 9 * players.Statistics.LiveBytes);
            await players.CompactAsync();
            Assert.Equal(players.Statistics.LiveBytes, players.Statistics.StoredBytes);
            Assert.Equal(1, players.Statistics.Compactions);
            Assert.Equal("player-7-round-10", players.Get(7)!.Name);
        }

        output.WriteLine($"one copy: {ShardBytes(once):N0} bytes; ten rewrites then a compaction: {ShardBytes(path):N0} bytes");
        Assert.True(ShardBytes(path) <= 2 * ShardBytes(once), $"{ShardBytes(path)} bytes after compaction, one copy takes {ShardBytes(once)}");
        await using (var reopened = await StellarStore.OpenAsync(path, options))
        {
            var players = Players(reopened);
            Assert.Equal(10_000, players.Count);
            Assert.All(Enumerable.Range(0, 10_000), i => Assert.Equal($"player-{i}-round-10", players.Get(i)!.Name));
            Assert.Empty(reopened.Recovery.RemovedFiles);
        }
    }

    [Fact]
    public async Task CompactAsync_DropsDeletedKeysForGood()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = Players(store);
            await WriteRoundAsync(players, 1_000, 1);
            for (var i = 0; i < 1_000; i += 2)
            {
                await players.DeleteAsync(i);
            }

            await players.CompactAsync();
            await players.InsertAsync(new Player(0, "back", 1, 1)); // a new write after compaction wins too
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        var again = Players(reopened);
        Assert.Equal(501, again.Count);
        Assert.Equal("back", again.Get(0)!.Name);
        Assert.False(again.TryGet(2, out _));
        Assert.Equal("player-3-round-1", again.Get(3)!.Name);
    }

    [Fact]
    public async Task CompactAsync_WhileWritersAndReadersRun_LosesNothingAndLatestWriteWins()
    {
        var options = new StoreOptions { MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };
        var expected = new Dictionary<int, string>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = Players(store);
            await WriteRoundAsync(players, 2_000, 1);

            // The independent record: every value some write stored, noted before the write is sent (a reader may
            // see a write before its task completes).
            var written = new System.Collections.Concurrent.ConcurrentDictionary<Player, bool>(
                Enumerable.Range(0, 2_000).Select(i => KeyValuePair.Create(new Player(i, $"player-{i}-round-1", 1, i), true)));
            var writers = Enumerable.Range(0, 4).Select(w => Task.Run(async () =>
            {
                for (var round = 2; round <= 30; round++)
                {
                    for (var i = w; i < 2_000; i += 40)
                    {
                        var player = new Player(i, $"p{i}-r{round}", round, round);
                        written[player] = true;
                        await players.UpsertAsync(player);
                    }
                }
            })).ToArray();
            var readerErrors = new System.Collections.Concurrent.ConcurrentQueue<string>();
            using var stop = new CancellationTokenSource();
            var reader = Task.Run(() =>
            {
                // A later snapshot never sees an older round of a key than an earlier one did.
                var seen = new int[2_000];
                while (!stop.IsCancellationRequested && readerErrors.IsEmpty)
                {
                    using var view = players.Snapshot();
                    var values = view.Query().ToList();
                    if (view.Count != 2_000 || values.Count != 2_000 || values.Select(p => p.Id).Distinct().Count() != 2_000)
                    {
                        readerErrors.Enqueue($"a snapshot held {values.Count} values, Count {view.Count}");
                    }

                    foreach (var player in values)
                    {
                        if (!written.ContainsKey(player))
                        {
                            readerErrors.Enqueue($"a snapshot read {player}, which no write stored");
                        }
                        else if (player.Level < seen[player.Id])
                        {
                            readerErrors.Enqueue($"key {player.Id} went back from round {seen[player.Id]} to {player.Level}");
                        }
                        else if (view.Get(player.Id) != player)
                        {
                            readerErrors.Enqueue($"key {player.Id}: the snapshot's Get and Query disagree");
                        }

                        seen[player.Id] = player.Level;
                    }

                    // Reads without a snapshot return stored values too.
                    for (var i = 0; i < 40; i++)
                    {
                        if (players.Get(i) is not { } latest || !written.ContainsKey(latest))
                        {
                            readerErrors.Enqueue($"key {i} read without a snapshot is not a stored value");
                        }
                    }
                }
            });
            for (var i = 0; i < 5; i++)
            {
                await players.CompactAsync();
            }

            await Task.WhenAll(writers);
            await players.CompactAsync();
            await stop.CancelAsync();
            await reader;
            Assert.Empty(readerErrors);
            for (var i = 0; i < 2_000; i++)
            {
                expected[i] = i % 40 < 4 ? $"p{i}-r30" : "player-" + i + "-round-1";
                Assert.Equal(expected[i], players.Get(i)!.Name);
            }
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var again = Players(reopened);
        Assert.Equal(2_000, again.Count);
        Assert.All(expected, e => Assert.Equal(e.Value, again.Get(e.Key)!.Name));
    }

    [Fact]
    public async Task Writes_WhenDeadBytesPassTheThreshold_CompactInTheBackground()
    {
        var options = new StoreOptions { MaxShardBytes = 64 * 1024 };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = Players(store);
            for (var round = 1; round <= 20; round++)
            {
                await WriteRoundAsync(players, 500, round);
            }

            // Compaction runs on its own; wait (bounded) for the first one to finish.
            for (var i = 0; i < 600 && players.Statistics.Compactions == 0; i++)
            {
                await Task.Delay(50);
            }

            Assert.True(players.Statistics.Compactions > 0, "no automatic compaction ran");
            Assert.Null(players.Statistics.LastCompactionError);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var again = Players(reopened);
        Assert.Equal(500, again.Count);
        Assert.Equal("player-499-round-20", again.Get(499)!.Name);
    }

    [Fact]
    public async Task Open_AfterACrashLeftCompactionFiles_RemovesThemAndKeepsEveryRecord()
    {
        var options = new StoreOptions { MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = Players(store);
            await WriteRoundAsync(players, 2_000, 1);
            await WriteRoundAsync(players, 2_000, 2);
            await players.CompactAsync();
        }

        // What a crash leaves: an input shard not yet deleted, and an output shard still being written.
        var listed = Directory.GetFiles(_dir.Path, "*.shard").Order(StringComparer.Ordinal).First();
        File.Copy(listed, Path.Combine(_dir.Path, "c00000001-00000001.shard"));
        File.WriteAllBytes(Path.Combine(_dir.Path, "c00000001-00000002.shard.compacting"), new byte[100]);
        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        Assert.Equal(2_000, Players(reopened).Count);
        Assert.Equal("player-9-round-2", Players(reopened).Get(9)!.Name);
        Assert.Equal(["c00000001-00000001.shard", "c00000001-00000002.shard.compacting"], reopened.Recovery.RemovedFiles.Order(StringComparer.Ordinal));
        Assert.False(File.Exists(Path.Combine(_dir.Path, "c00000001-00000001.shard")));
    }

    /// <summary>
    /// Fails each storage operation of a compaction in turn, then crashes the machine (what was not flushed is
    /// lost) and reopens: every committed record is there with its latest value, every time.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task CompactAsync_InterruptedAtEveryStorageOperation_ReopensWithEveryCommittedRecord(bool encrypted)
    {
        var options = new StoreOptions
        {
            Durability = Durability.Fsync,
            MaxShardBytes = 64 * 1024,
            CompactionThreshold = 0,
            Compression = Compression.Lz4,
            EncryptionKey = encrypted ? new byte[32] : null,
        };

        async Task<(FaultInjectingStorage Storage, int Before)> PrepareAsync()
        {
            var storage = new FaultInjectingStorage(new MemoryStorage());
            var store = await StellarStore.OpenAsync(storage, options);
            var players = Players(store);
            for (var round = 1; round <= 4; round++)
            {
                await WriteRoundAsync(players, 600, round);
            }

            await players.DeleteAsync(5);
            await store.DisposeAsync();
            ((MemoryStorage)storage.Inner).SimulateCrash(losesUnsyncedData: true);
            return (storage, storage.OperationCount);
        }

        async Task<Exception?> CompactAsync(FaultInjectingStorage storage)
        {
            await using var store = await StellarStore.OpenAsync(storage, options);
            var players = Players(store);
            var failure = await Record.ExceptionAsync(() => players.CompactAsync());
            await Record.ExceptionAsync(() => players.UpsertAsync(new Player(1, "after", 5, 5)));
            return failure;
        }

        var (clean, start) = await PrepareAsync();
        Assert.Null(await CompactAsync(clean));
        var steps = clean.OperationCount - start;
        Assert.True(steps > 5, $"a compaction took only {steps} storage operations");

        for (var k = 1; k <= steps; k++)
        {
            var (storage, before) = await PrepareAsync();
            storage.FailOperationAt = before + k;
            var failure = await CompactAsync(storage);
            ((MemoryStorage)storage.Inner).SimulateCrash(losesUnsyncedData: true);
            storage.FailOperationAt = null;

            await using var reopened = await StellarStore.OpenAsync(storage.Inner, options);
            var players = Players(reopened);
            Assert.True(players.Count == 599, $"step {k} ({failure?.Message}): {players.Count} keys");
            Assert.False(players.TryGet(5, out _), $"step {k}: a deleted key came back");
            for (var i = 0; i < 600; i++)
            {
                if (i is not 5 and not 1)
                {
                    Assert.True(players.Get(i)?.Name == $"player-{i}-round-4", $"step {k}: key {i} is {players.Get(i)?.Name}");
                }
            }

            Assert.Contains(players.Get(1)!.Name, new[] { "player-1-round-4", "after" });
        }
    }
}
