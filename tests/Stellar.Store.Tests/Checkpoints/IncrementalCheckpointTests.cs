using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Checkpoints;

/// <summary>
/// What a checkpoint after a checkpoint costs, and what frequent checkpoints leave behind in the store, on real files:
/// costs against the bytes the store's shard files grew by (measured on disk), contents against the test's own model.
/// </summary>
public sealed class IncrementalCheckpointTests
{
    private static readonly StoreOptions Small = new() { MaxShardBytes = 64 * 1024 };

    [Fact]
    public async Task CheckpointAfterCheckpoint_CopiesNoMoreThanTheBytesWrittenBetween_HoweverFew()
    {
        using var dir = new TempDirectory();
        var path = dir.Sub("store");
        var models = Enumerable.Range(0, 3).Select(_ => new Dictionary<int, long>()).ToArray();
        await using var store = await StellarStore.OpenAsync(path, Small);
        var collections = Enumerable.Range(0, 3).Select(c => store.GetCollection<int, Account>($"c{c}", a => a.Id)).ToArray();
        for (var c = 0; c < 3; c++)
        {
            // Less than a sixteenth of a shard each: small active shards, the case a size rule for sealing would leave out.
            for (var i = 0; i < 40; i++)
            {
                await collections[c].UpsertAsync(new Account(i, i + c));
                models[c][i] = i + c;
            }
        }

        var first = await store.CheckpointAsync("first");
        Assert.True(first.CopiedBytes > 0, "the first checkpoint copies the active shards");
        await Verify(first, models);

        // A few records in one collection only: the checkpoint copies those bytes, and links every other collection's
        // active shard from the first checkpoint's copy.
        var before = ShardBytes(path);
        for (var i = 0; i < 3; i++)
        {
            await collections[1].UpsertAsync(new Account(100 + i, -i));
            models[1][100 + i] = -i;
        }

        var written = ShardBytes(path) - before;
        var second = await store.CheckpointAsync("second");
        Assert.True(second.CopiedBytes <= written, $"copied {second.CopiedBytes} bytes; {written} were written since the first checkpoint");
        Assert.True(second.CopiedBytes > 0, "the new blocks are copied");
        await Verify(second, models);

        // Nothing written: nothing copied.
        var third = await store.CheckpointAsync("third");
        Assert.Equal(0, third.CopiedBytes);
        await Verify(third, models);

        // The checkpoint whose copies were linked is gone: the next one copies from the store again, and holds the same.
        store.DeleteCheckpoint("third");
        store.DeleteCheckpoint("second");
        var fourth = await store.CheckpointAsync("fourth");
        Assert.True(fourth.CopiedBytes > 0);
        await Verify(fourth, models);
        await Verify(first, models.Select((m, c) => c == 1 ? m.Where(p => p.Key < 100).ToDictionary() : m).ToArray());
    }

    [Fact]
    public async Task TheFirstCheckpointAfterARestart_CopiesOnlyTheBytesWrittenSinceTheLast_AndLinksOnlyWhatIsTheSame()
    {
        using var dir = new TempDirectory();
        var path = dir.Sub("store");
        var models = Enumerable.Range(0, 3).Select(_ => new Dictionary<int, long>()).ToArray();
        await using (var store = await StellarStore.OpenAsync(path, Small))
        {
            for (var c = 0; c < 3; c++)
            {
                var collection = store.GetCollection<int, Account>($"c{c}", a => a.Id);
                for (var i = 0; i < 40; i++)
                {
                    await collection.UpsertAsync(new Account(i, i + c));
                    models[c][i] = i + c;
                }
            }

            await store.CheckpointAsync("before");
        }

        // A restart, a few records in one collection: the next checkpoint copies those bytes only. The active shard
        // written before the restart was sealed at the first write; the others are linked from the last checkpoint,
        // whose files hold the same bytes.
        CheckpointInfo after;
        await using (var store = await StellarStore.OpenAsync(path, Small))
        {
            var before = ShardBytes(path);
            var collection = store.GetCollection<int, Account>("c1", a => a.Id);
            for (var i = 0; i < 3; i++)
            {
                await collection.UpsertAsync(new Account(100 + i, -i));
                models[1][100 + i] = -i;
            }

            var written = ShardBytes(path) - before;
            after = await store.CheckpointAsync("after");
            Assert.True(after.CopiedBytes <= written, $"copied {after.CopiedBytes} bytes; {written} were written since the last checkpoint");
            await Verify(after, models);
        }

        // The newest checkpoint's copies of the active shards altered, each at its last byte (same length): another
        // restart, nothing written, and the next checkpoint copies those shards from the store instead of linking them.
        foreach (var active in ActiveShardFiles(after.Path))
        {
            var bytes = await File.ReadAllBytesAsync(active);
            bytes[^1] ^= 0x5A;
            await File.WriteAllBytesAsync(active, bytes);
        }

        await using (var store = await StellarStore.OpenAsync(path, Small))
        {
            var again = await store.CheckpointAsync("again");
            Assert.True(again.CopiedBytes > 0, "an active shard whose copy differs is copied again");
            await Verify(again, models);
            var quiet = await store.CheckpointAsync("quiet");
            Assert.Equal(0, quiet.CopiedBytes);
            await Verify(quiet, models);
        }
    }

    [Fact]
    public async Task CheckpointsAfterEveryFewWrites_ToACollectionThatNeverOverwrites_KeepItsShardCountBounded()
    {
        using var dir = new TempDirectory();
        var path = dir.Sub("store");
        var model = new Dictionary<int, long>();
        await using (var store = await StellarStore.OpenAsync(path, new StoreOptions { MaxShardBytes = Small.MaxShardBytes, CheckpointRetention = new CheckpointRetention { KeepLast = 2 } }))
        {
            var log = store.GetCollection<int, Account>("log", a => a.Id);
            CheckpointInfo? last = null;
            for (var round = 0; round < 3 * 64; round++)
            {
                await log.InsertAsync(new Account(round, round));
                model[round] = round;
                last = await store.CheckpointAsync($"c{round:D3}");
            }

            // Every checkpoint sealed the shard written since the one before; merges keep them from piling up.
            await WaitFor(() => log.Statistics.Compactions >= 2);
            Assert.True(ShardFiles(path) < 2 * 64, $"{ShardFiles(path)} shard files after {3 * 64} checkpoints");
            await Verify(last!, [model], "log");
        }

        await using var reopened = await StellarStore.OpenAsync(path, Small);
        Assert.Equal(model.OrderBy(p => p.Key), reopened.GetCollection<int, Account>("log", a => a.Id).Query(_ => true).Select(a => KeyValuePair.Create(a.Id, a.Gold)).OrderBy(p => p.Key));
    }

    [Fact]
    public async Task ACompactionThatRetiresTheShardsACheckpointListed_DeletesThemOnlyAfterTheCheckpointLinkedThem()
    {
        using var dir = new TempDirectory();
        var path = dir.Sub("store");
        var clock = new CheckpointPausingClock();
        var model = new Dictionary<int, long>();
        await using var store = await StellarStore.OpenAsync(path, new StoreOptions { MaxShardBytes = Small.MaxShardBytes, CompactionThreshold = 0, Clock = clock });
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        for (var i = 0; i < 4_000; i++)
        {
            await accounts.UpsertAsync(new Account(i % 60, i));
            model[i % 60] = i;
        }

        // The checkpoint stops after every cut and before its links and copies; meanwhile a compaction retires every
        // shard it listed, and a write gives the writer its turn to delete retired shards.
        var listed = Directory.EnumerateFiles(path, "*.shard").Select(Path.GetFileName).ToList();
        var checkpoint = store.CheckpointAsync("c");
        await clock.Paused.Task.WaitAsync(TimeSpan.FromMinutes(1));
        await accounts.CompactAsync();
        await accounts.UpsertAsync(new Account(10_000, 1));
        Assert.All(listed, name => Assert.True(File.Exists(Path.Combine(path, name!)), $"the checkpoint still needs {name}"));
        clock.Resume.SetResult();

        var info = await checkpoint;
        await using (var opened = await StellarStore.OpenReadOnlyAsync(info.Path))
        {
            var then = opened.GetCollection<int, Account>("accounts", a => a.Id).Query(_ => true).Select(a => KeyValuePair.Create(a.Id, a.Gold));
            Assert.Equal(model.OrderBy(p => p.Key), then.OrderBy(p => p.Key));
        }

        // Released: the next write deletes them.
        await accounts.UpsertAsync(new Account(10_001, 1));
        Assert.All(listed, name => Assert.False(File.Exists(Path.Combine(path, name!)), $"{name} was retired and is no longer needed"));
    }

    private static async Task Verify(CheckpointInfo checkpoint, IReadOnlyList<Dictionary<int, long>> models, string? name = null)
    {
        await using var opened = await StellarStore.OpenReadOnlyAsync(checkpoint.Path);
        for (var c = 0; c < models.Count; c++)
        {
            var then = opened.GetCollection<int, Account>(name ?? $"c{c}", a => a.Id).Query(_ => true).Select(a => KeyValuePair.Create(a.Id, a.Gold));
            Assert.Equal(models[c].OrderBy(p => p.Key), then.OrderBy(p => p.Key));
        }
    }

    private static long ShardBytes(string path) => Directory.EnumerateFiles(path, "*.shard").Sum(f => new FileInfo(f).Length);

    /// <summary>The last shard file of each collection in a checkpoint: the copies of the active shards.</summary>
    private static IEnumerable<string> ActiveShardFiles(string checkpoint) =>
        Directory.EnumerateFiles(checkpoint, "*.shard")
            .Select(f => (File: f, Parsed: Stellar.Store.Format.StoreFileNames.TryParseShard(Path.GetFileName(f), out var collection, out var shard), Collection: collection, Shard: shard))
            .GroupBy(f => f.Collection)
            .Select(g => g.MaxBy(f => f.Shard).File);

    private static int ShardFiles(string path) => Directory.EnumerateFiles(path, "*.shard").Count();

    /// <summary>Waits for a background compaction (a deadline far above its time, so only a hang fails it).</summary>
    private static async Task WaitFor(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow.AddMinutes(1);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "the background compaction did not complete within a minute");
            await Task.Delay(20);
        }
    }

    /// <summary>
    /// The system clock, except that the checkpoint's own reading of it, which comes after every cut and before the
    /// links and copies, waits until the test lets it go on.
    /// </summary>
    private sealed class CheckpointPausingClock : TimeProvider
    {
        private int _paused;

        public TaskCompletionSource Paused { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Resume { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public override DateTimeOffset GetUtcNow()
        {
            if (new System.Diagnostics.StackTrace().ToString().Contains(nameof(StellarStore.CheckpointAsync), StringComparison.Ordinal)
                && Interlocked.Exchange(ref _paused, 1) == 0)
            {
                Paused.SetResult();
                Resume.Task.Wait();
            }

            return System.GetUtcNow();
        }
    }
}
