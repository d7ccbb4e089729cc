using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Engine;

/// <summary>
/// Writes at the edges of the block format: a block the reader would refuse is never written, values of the
/// largest accepted size and values larger than a shard round-trip, and a bulk import of large records is cut into
/// blocks the reader accepts.
/// </summary>
public sealed class BlockLimitTests : IDisposable
{
    private const int MiB = 1024 * 1024;

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static Collection<string, Chunk> Chunks(StellarStore store) => store.GetCollection<string, Chunk>("chunks", c => c.Id);

    /// <summary>Bytes that differ per key and per position, so a value read from the wrong place cannot match.</summary>
    private static byte[] Pattern(int seed, int length)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes.AsSpan(0, Math.Min(length, 4096)));
        for (var i = 4096; i < length; i += 4096)
        {
            bytes[i] = (byte)(seed + (i / 4096));
        }

        return bytes;
    }

    [Fact]
    public async Task WriteAsync_BatchTooLargeForOneBlock_IsRejectedAndStoresNothing()
    {
        // The reported case: five values of 60 MiB in one atomic batch, 300 MiB for one block the reader caps at 256 MiB.
        var earlier = Enumerable.Range(0, 3).Select(i => new Chunk { Id = $"small-{i}", Voxels = Pattern(i, 1000) }).ToList();
        var big = new byte[60 * MiB];
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var chunks = Chunks(store);
            foreach (var chunk in earlier)
            {
                await chunks.InsertAsync(chunk);
            }

            var rejected = await Assert.ThrowsAsync<ArgumentException>(() => chunks.WriteAsync(b =>
            {
                for (var i = 0; i < 5; i++)
                {
                    b.Upsert(new Chunk { Id = $"big-{i}", Voxels = big });
                }
            }));
            Assert.Contains(chunks.MaxBatchBytes.ToString(System.Globalization.CultureInfo.InvariantCulture), rejected.Message, StringComparison.Ordinal);

            // Nothing stored, and the collection goes on.
            Assert.Equal(3, chunks.Count);
            Assert.Null(chunks.Get("big-0"));
            await chunks.InsertAsync(new Chunk { Id = "after", Voxels = Pattern(99, 1000) });
            earlier.Add(chunks.Get("after")!);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        Assert.Equal(0, reopened.Recovery.TruncatedBytes);
        var again = Chunks(reopened);
        Assert.Equal(earlier.Count, again.Count);
        foreach (var chunk in earlier)
        {
            Assert.Equal(chunk.Voxels, again.Get(chunk.Id)!.Voxels);
        }
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Upsert_ValueOfExactlyTheValueLimit_RoundTripsThroughReopen(bool compressedAndEncrypted)
    {
        var options = new StoreOptions
        {
            Compression = compressedAndEncrypted ? Compression.Lz4 : Compression.None,
            EncryptionKey = compressedAndEncrypted ? new byte[32] : null,
        };

        // A byte[] value serializes as MessagePack bin 32: five bytes of header, then the bytes.
        var value = Pattern(7, Collection<int, byte[]>.MaxValueBytes - 5);
        value[0] = 1;
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var blobs = store.GetCollection<int, byte[]>("blobs", b => b[0]);
            await blobs.UpsertAsync(value);
            await Assert.ThrowsAsync<ArgumentException>(() => blobs.UpsertAsync(Pattern(2, Collection<int, byte[]>.MaxValueBytes - 4)));
            Assert.Equal(value, blobs.Get(1));
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var again = reopened.GetCollection<int, byte[]>("blobs", b => b[0]);
        Assert.Equal(1, again.Count);
        Assert.Equal(value, again.Get(1));
    }

    [Fact]
    public async Task Upsert_ValuesLargerThanAShard_RoundTripThroughReopen()
    {
        var options = new StoreOptions { MaxShardBytes = 64 * 1024 };
        var values = Enumerable.Range(0, 6).Select(i => new Chunk { Id = $"c{i}", Voxels = Pattern(i, (i + 1) * 100 * 1024) }).ToList();
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var chunks = Chunks(store);
            foreach (var chunk in values)
            {
                await chunks.UpsertAsync(chunk);
            }

            await chunks.InsertAsync(new Chunk { Id = "small", Voxels = [1, 2, 3] });
            values.Add(chunks.Get("small")!);
            Assert.Equal(values[5].Voxels, chunks.Get("c5")!.Voxels);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        Assert.Equal(0, reopened.Recovery.TruncatedBytes);
        var again = Chunks(reopened);
        Assert.Equal(values.Count, again.Count);
        foreach (var chunk in values)
        {
            Assert.Equal(chunk.Voxels, again.Get(chunk.Id)!.Voxels);
        }
    }

    [Fact]
    public async Task BulkImport_LargeRecords_WritesReadableBlocksThatReopen()
    {
        // 280 records of 1 MiB: one 4,096-record chunk would be a 280 MiB block, past what the reader accepts.
        const int records = 280;
        IEnumerable<Chunk> Source() => Enumerable.Range(0, records).Select(i => new Chunk { Id = $"c{i}", Voxels = Pattern(i, MiB) });

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var chunks = Chunks(store);
            await chunks.BulkImportAsync(Source());
            Assert.Equal(records, chunks.Count);
            Assert.Equal(Pattern(0, MiB), chunks.Get("c0")!.Voxels);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        Assert.Equal(0, reopened.Recovery.TruncatedBytes);
        var again = Chunks(reopened);
        Assert.Equal(records, again.Count);
        foreach (var chunk in Source())
        {
            Assert.Equal(chunk.Voxels, again.Get(chunk.Id)!.Voxels);
        }
    }
}
