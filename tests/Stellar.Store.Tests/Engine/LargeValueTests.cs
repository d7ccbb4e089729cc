using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Engine;

/// <summary>Values over <see cref="StoreOptions.LargeValueThreshold"/> live on disk, not in memory.</summary>
public sealed class LargeValueTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static Chunk MakeChunk(int id, int round, int size = 40_000)
    {
        var voxels = new byte[size];
        new Random(id * 1000 + round).NextBytes(voxels.AsSpan(0, size / 4)); // partly compressible, like a world chunk
        return new Chunk { Id = $"chunk-{id}", Voxels = voxels };
    }

    private static Collection<string, Chunk> Chunks(StellarStore store) => store.GetCollection<string, Chunk>("chunks", c => c.Id);

    private static bool HeldInMemory(Collection<string, Chunk> chunks, string key) =>
        chunks.Engine.Map.TryGetLatest(key, out var node) && node.Location is null;

    [Theory]
    [InlineData(Durability.Buffered, false)]
    [InlineData(Durability.WriteThrough, false)]
    [InlineData(Durability.Fsync, true)]
    public async Task LargeValues_AreKeptOnDiskAndReadBackExactly_AcrossReopen(Durability durability, bool compressedAndEncrypted)
    {
        var options = new StoreOptions
        {
            Durability = durability,
            Compression = compressedAndEncrypted ? Compression.Lz4 : Compression.None,
            EncryptionKey = compressedAndEncrypted ? new byte[32] : null,
        };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var chunks = Chunks(store);
            for (var i = 0; i < 20; i++)
            {
                await chunks.UpsertAsync(MakeChunk(i, 1));
            }

            await chunks.UpsertAsync(new Chunk { Id = "small", Voxels = new byte[100] });
            await chunks.WriteAsync(b =>
            {
                b.Upsert(MakeChunk(3, 2));
                b.Upsert(MakeChunk(4, 2));
            });

            Assert.False(HeldInMemory(chunks, "chunk-0"));
            Assert.True(HeldInMemory(chunks, "small"));
            Assert.Equal(MakeChunk(3, 2).Voxels, chunks.Get("chunk-3")!.Voxels); // readable at once, in every mode
            Assert.Equal(MakeChunk(7, 1).Voxels, chunks.Get("chunk-7")!.Voxels);
            Assert.Equal(21, chunks.Query(c => c.Voxels.Length > 1000).Count() + 1);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var again = Chunks(reopened);
        Assert.False(HeldInMemory(again, "chunk-5"));
        Assert.Equal(MakeChunk(4, 2).Voxels, again.Get("chunk-4")!.Voxels);
        Assert.Equal(MakeChunk(19, 1).Voxels, again.Get("chunk-19")!.Voxels);
        Assert.Equal(100, again.Get("small")!.Voxels.Length);
    }

    [Fact]
    public async Task LargeValues_ReadWhileCompactionMovesThem_StayExactAndOldSnapshotsStillRead()
    {
        var options = new StoreOptions { MaxShardBytes = 256 * 1024, CompactionThreshold = 0, Compression = Compression.Lz4 };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var chunks = Chunks(store);
            for (var i = 0; i < 30; i++)
            {
                await chunks.UpsertAsync(MakeChunk(i, 1));
            }

            using var before = chunks.Snapshot();
            for (var i = 0; i < 30; i++)
            {
                await chunks.UpsertAsync(MakeChunk(i, 2));
            }

            using var stop = new CancellationTokenSource();
            var wrong = 0;
            var reader = Task.Run(() =>
            {
                var random = new Random(1);
                while (!stop.IsCancellationRequested)
                {
                    var i = random.Next(30);
                    if (!chunks.Get($"chunk-{i}")!.Voxels.AsSpan().SequenceEqual(MakeChunk(i, 2).Voxels))
                    {
                        Interlocked.Increment(ref wrong);
                    }
                }
            });

            for (var round = 0; round < 3; round++)
            {
                await chunks.CompactAsync();
            }

            await stop.CancelAsync();
            await reader;
            Assert.Equal(0, wrong);

            // The snapshot from before the rewrite still reads the values the compaction did not copy.
            Assert.Equal(MakeChunk(11, 1).Voxels, before.Get("chunk-11")!.Voxels);
            Assert.Equal(30, before.Query().Count());
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var again = Chunks(reopened);
        Assert.All(Enumerable.Range(0, 30), i => Assert.Equal(MakeChunk(i, 2).Voxels, again.Get($"chunk-{i}")!.Voxels));
        Assert.Empty(reopened.Recovery.RemovedFiles); // the old shards were deleted once the snapshot was gone
    }

    [Fact]
    public async Task Get_WhenALargeValuesBlockIsDamagedAfterOpen_ThrowsCorruptBlockNotWrongData()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var chunks = Chunks(store);
        await chunks.UpsertAsync(MakeChunk(1, 1));
        await store.FlushAsync();

        var shard = Directory.GetFiles(_dir.Path, "*.shard").Single();
        FileDamage.FlipBit(shard, fromEnd: 100);

        var e = Assert.Throws<CorruptBlockException>(() => chunks.Get("chunk-1"));
        Assert.Equal(shard, e.Path);
    }

    [Fact]
    public async Task CompactAsync_WhenALargeValuesBlockIsDamagedAfterOpen_ThrowsCorruptBlockAndKeepsTheCollection()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var chunks = Chunks(store);
        for (var i = 0; i < 20; i++)
        {
            await chunks.UpsertAsync(new Chunk { Id = $"small-{i}", Voxels = new byte[100] });
        }

        await chunks.DeleteAsync("small-0");
        await chunks.UpsertAsync(MakeChunk(1, 1));
        await store.FlushAsync();
        var shard = Directory.GetFiles(_dir.Path, "*.shard").Single();
        FileDamage.FlipBit(shard, fromEnd: 100);

        // The large value is copied from its block, read in the compaction's parallel encode: its damage is the caller's
        // CorruptBlockException naming the file, as a read's is, not the parallel loop's wrapper.
        var e = await Assert.ThrowsAsync<CorruptBlockException>(() => chunks.CompactAsync());
        Assert.Equal(shard, e.Path);
        Assert.Equal(0, chunks.Statistics.Compactions);
        Assert.Equal(new byte[100], chunks.Get("small-7")!.Voxels);
        await chunks.UpsertAsync(new Chunk { Id = "after", Voxels = new byte[10] });
        Assert.Equal(new byte[10], chunks.Get("after")!.Voxels);
    }
}
