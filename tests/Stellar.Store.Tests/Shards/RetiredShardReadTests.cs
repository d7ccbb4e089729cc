using System.Collections.Concurrent;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// Reads of large values (kept on disk) that meet a compaction retiring the shard they read: no read fails, none
/// returns a value that was never written, and no handle on a deleted shard stays open.
/// </summary>
public sealed class RetiredShardReadTests : IDisposable
{
    private static readonly TimeSpan HangTimeout = TimeSpan.FromSeconds(30);

    // 40 KB values in 64 KiB shards: every value gets a shard of its own, so a compaction retires exactly the
    // shards of the values it names.
    private static readonly StoreOptions Options = MakeOptions(64 * 1024);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    /// <summary>
    /// The reader has found version 1 and is about to open its shard when version 2 is written and a compaction
    /// retires and deletes version 1's shard: the read retries at the newest version instead of failing.
    /// </summary>
    [Fact]
    public async Task Get_WhenTheVersionItFoundIsReplacedAndCompactedAwayMidRead_ReturnsTheNewestValue()
    {
        var storage = new InterleavingStorage(new FileStorage(_dir.Path));
        await using var store = await StellarStore.OpenAsync(storage, Options);
        var chunks = Chunks(store);
        await chunks.UpsertAsync(MakeChunk(1, round: 1));
        var firstShard = ShardNames().Single();

        var raced = 0;
        storage.BeforeOpenRead = name =>
        {
            if (name == firstShard && Interlocked.Exchange(ref raced, 1) == 0)
            {
                chunks.UpsertAsync(MakeChunk(1, round: 2)).WaitAsync(HangTimeout).GetAwaiter().GetResult();
                chunks.CompactAsync().WaitAsync(HangTimeout).GetAwaiter().GetResult();
                Assert.DoesNotContain(firstShard, ShardNames());
            }
        };

        var read = chunks.Get("chunk-1");

        Assert.Equal(1, raced);
        Assert.Equal(MakeChunk(1, round: 2).Voxels, read!.Voxels);
    }

    /// <summary>
    /// The reader opens version 1's shard after the compaction closed the readers' handles on it and before it
    /// deletes the file: that handle is closed too, never kept on the deleted file.
    /// </summary>
    [Fact]
    public async Task Get_OpeningAShardBetweenItsRetirementAndItsDeletion_LeavesNoHandleOnTheDeletedFile()
    {
        var storage = new InterleavingStorage(new FileStorage(_dir.Path));
        await using var store = await StellarStore.OpenAsync(storage, Options);
        var chunks = Chunks(store);
        await chunks.UpsertAsync(MakeChunk(1, round: 1));
        var firstShard = ShardNames().Single();

        using var readerWaits = new ManualResetEventSlim();
        using var mayOpen = new ManualResetEventSlim();
        using var opened = new ManualResetEventSlim();
        var blocked = 0;
        storage.BeforeOpenRead = name =>
        {
            if (name == firstShard && Interlocked.Exchange(ref blocked, 1) == 0)
            {
                readerWaits.Set();
                mayOpen.Wait(HangTimeout);
            }
        };
        storage.AfterOpenRead = name =>
        {
            if (name == firstShard)
            {
                opened.Set();
            }
        };
        storage.BeforeDelete = name =>
        {
            if (name == firstShard)
            {
                // The compaction has retired the shard; let the reader open it now, before the file goes.
                mayOpen.Set();
                opened.Wait(HangTimeout);
            }
        };

        var reader = Task.Run(() => chunks.Get("chunk-1"));
        Assert.True(readerWaits.Wait(HangTimeout));
        await chunks.UpsertAsync(MakeChunk(1, round: 2));
        await chunks.CompactAsync().WaitAsync(HangTimeout);
        var read = await reader.WaitAsync(HangTimeout);

        Assert.True(opened.IsSet);
        Assert.DoesNotContain(firstShard, ShardNames());

        // Either version is a right answer: the read began before version 2 was written.
        var expected = new[] { MakeChunk(1, round: 1).Voxels, MakeChunk(1, round: 2).Voxels };
        Assert.Contains(expected, v => v.AsSpan().SequenceEqual(read!.Voxels));
        Assert.Equal(MakeChunk(1, round: 2).Voxels, chunks.Get("chunk-1")!.Voxels);
        AssertNoHandleOnADeletedFile();
    }

    /// <summary>
    /// Writers overwrite large values while compactions run back to back and readers hammer <c>Get</c>. Every read
    /// must return a value that some write stored, as an independent record of the writes says, and never throw.
    /// </summary>
    [Fact]
    public async Task Get_OfLargeValuesOverwrittenWhileCompactionsRun_ReturnsOnlyStoredValuesAndNeverThrows()
    {
        const int Keys = 8;
        await using var store = await StellarStore.OpenAsync(_dir.Path, MakeOptions(256 * 1024));
        var chunks = Chunks(store);

        // Recorded before each write is sent: a reader may see a write before its task completes.
        var written = new ConcurrentDictionary<(int Key, int Round), bool>();
        for (var key = 0; key < Keys; key++)
        {
            written[(key, 0)] = true;
            await chunks.UpsertAsync(MakeChunk(key, round: 0, size: 4_000));
        }

        using var stop = new CancellationTokenSource();
        var failures = new ConcurrentQueue<string>();
        long reads = 0;
        var writer = Task.Run(async () =>
        {
            for (var round = 1; !stop.IsCancellationRequested; round++)
            {
                for (var key = 0; key < Keys; key++)
                {
                    written[(key, round)] = true;
                    await chunks.UpsertAsync(MakeChunk(key, round, size: 4_000));
                }
            }
        });
        var readers = Enumerable.Range(0, 2).Select(r => Task.Run(() =>
        {
            var random = new Random(r);
            while (!stop.IsCancellationRequested)
            {
                var key = random.Next(Keys);
                try
                {
                    var chunk = chunks.Get($"chunk-{key}")!;
                    var round = BitConverter.ToInt32(chunk.Voxels);
                    if (!written.ContainsKey((key, round)) || !chunk.Voxels.AsSpan().SequenceEqual(MakeChunk(key, round, size: 4_000).Voxels))
                    {
                        failures.Enqueue($"chunk-{key} read a value no write stored (round {round})");
                    }
                }
                catch (Exception e)
                {
                    failures.Enqueue($"chunk-{key}: {e.GetType().Name}: {e.Message}");
                }

                Interlocked.Increment(ref reads);
            }
        })).ToArray();

        var compactions = Stress.Pick(40, 400);
        for (var i = 0; i < compactions && failures.IsEmpty; i++)
        {
            await chunks.CompactAsync().WaitAsync(HangTimeout);
        }

        await stop.CancelAsync();
        await writer.WaitAsync(HangTimeout);
        await Task.WhenAll(readers).WaitAsync(HangTimeout);

        Assert.Empty(failures);
        Assert.True(reads > 0);
        Assert.True(chunks.Statistics.Compactions >= 1);
        AssertNoHandleOnADeletedFile();
    }

    private static StoreOptions MakeOptions(long maxShardBytes) =>
        new() { MaxShardBytes = maxShardBytes, CompactionThreshold = 0, LargeValueThreshold = 1024 };

    private static Collection<string, Chunk> Chunks(StellarStore store) => store.GetCollection<string, Chunk>("chunks", c => c.Id);

    /// <summary>A value whose first four bytes say which round wrote it, and whose rest follows from key and round.</summary>
    private static Chunk MakeChunk(int id, int round, int size = 40_000)
    {
        var voxels = new byte[size];
        new Random(id * 100_003 + round).NextBytes(voxels);
        BitConverter.TryWriteBytes(voxels, round);
        return new Chunk { Id = $"chunk-{id}", Voxels = voxels };
    }

    private string[] ShardNames() => Directory.GetFiles(_dir.Path, "*.shard").Select(Path.GetFileName).ToArray()!;

    /// <summary>On Linux, the process's open descriptors name the files they point at, deleted ones marked so.</summary>
    private void AssertNoHandleOnADeletedFile()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // no /proc to ask; the reads above are still checked
        }

        var leaked = new List<string>();
        foreach (var fd in Directory.GetFiles("/proc/self/fd"))
        {
            try
            {
                if (new FileInfo(fd).LinkTarget is { } target && target.StartsWith(_dir.Path, StringComparison.Ordinal) && target.EndsWith("(deleted)", StringComparison.Ordinal))
                {
                    leaked.Add(target);
                }
            }
            catch (IOException)
            {
                // A descriptor closed while the directory was listed.
            }
        }

        Assert.Empty(leaked);
    }
}
