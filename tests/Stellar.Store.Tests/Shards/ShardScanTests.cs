using System.Diagnostics;
using Akka.Actor;
using Akka.Configuration;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;
using Xunit.Abstractions;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// The work and memory of verifying shards at open: linear in the bytes on disk whatever the bytes are (a crafted
/// active shard included), and read through bounded buffers rather than a whole shard at a time.
/// </summary>
public sealed class ShardScanTests : IDisposable
{
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(2);

    private readonly TempDirectory _dir = new();
    private readonly ActorSystem _system = ActorSystem.Create("shard-scan-tests", ConfigurationFactory.ParseString("akka.loglevel = WARNING"));
    private readonly ITestOutputHelper _output;

    public ShardScanTests(ITestOutputHelper output) => _output = output;

    public void Dispose()
    {
        _system.Terminate().Wait(HangTimeout);
        _system.Dispose();
        _dir.Dispose();
    }

    private StoreOptions Options() => new() { ActorSystem = _system };

    [Theory]
    [InlineData(1)]
    [InlineData(16)]
    public async Task Scan_OfACraftedActiveShardOfValidHeadersOverBadBodies_RefusesAfterWorkLinearInItsSize(int mebibytes)
    {
        // Every 44 bytes a header with a valid header CRC, the right ids and a later sequence, claiming a body that
        // runs to the end of the file, with a block CRC that does not match: each one is a candidate "valid block
        // after the bad one" that costs the rest of the file to reject.
        var path = _dir.Sub("store");
        await WriteAsync(path, count: 3, valueBytes: 100);
        var shard = Directory.GetFiles(path, "*.shard").Single();
        var original = File.ReadAllBytes(shard);
        var last = ShardFiles.Blocks(shard, original)[^1].Header;
        var length = (long)mebibytes << 20;
        File.WriteAllBytes(shard, Craft(original, last, length));

        var stopwatch = Stopwatch.StartNew();
        var storage = new FileStorage(path);
        using var chain = Chain(storage);
        var outcome = Record.Exception(() => chain.Scan(sealActive: false));
        stopwatch.Stop();
        _output.WriteLine($"{mebibytes} MiB crafted shard: scanned in {stopwatch.Elapsed.TotalMilliseconds:F0} ms, checksumming {chain.ChecksummedBytes:N0} bytes ({(double)chain.ChecksummedBytes / length:F2} per byte on disk): {outcome?.Message ?? "no error"}");

        // Open checksums every byte once, plus 36 header bytes at most per magic number found (one per 4 bytes at
        // most) and the probe's budget of twice the bytes after the bad block.
        Assert.True(chain.ChecksummedBytes <= 12 * length, $"checksummed {chain.ChecksummedBytes:N0} bytes of a {length:N0}-byte shard");

        // Refused, not cut: the crafted bytes might be damage followed by data, and open never drops data on a guess.
        var error = Assert.IsType<CorruptBlockException>(outcome);
        Assert.Equal(shard, error.Path);
        Assert.Equal(original.Length, error.Offset);
        Assert.Equal(length, new FileInfo(shard).Length);

        // The store as a whole refuses in the same way and keeps every byte.
        var opened = await Assert.ThrowsAsync<CorruptBlockException>(() => StellarStore.OpenAsync(path, Options()).WaitAsync(HangTimeout));
        Assert.Equal(original.Length, opened.Offset);
        Assert.Equal(length, new FileInfo(shard).Length);
    }

    [Fact]
    public async Task Scan_OfAShardOfSeveralMebibytes_ReadsItThroughBuffersMuchSmallerThanTheShard()
    {
        var path = _dir.Sub("store");
        var written = await WriteAsync(path, count: 600, valueBytes: 8 * 1024);
        var shard = Directory.GetFiles(path, "*.shard").Single();
        var bytes = File.ReadAllBytes(shard);
        Assert.True(bytes.Length > 4 << 20, $"the shard holds only {bytes.Length:N0} bytes");

        var storage = new FileStorage(path);
        using var chain = Chain(storage);
        var before = GC.GetAllocatedBytesForCurrentThread();
        chain.Scan(sealActive: false);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        _output.WriteLine($"scanning a {bytes.Length:N0}-byte shard of {chain.Blocks.Count} blocks allocated {allocated:N0} bytes");

        // Every block found, where an independent reader of the file finds it.
        Assert.Equal(ShardFiles.Blocks(shard, bytes).Select(b => b.Offset), chain.Blocks.Select(b => b.Offset));
        Assert.Equal(0, chain.TruncatedBytes);
        Assert.True(allocated < bytes.Length / 4, $"scanning a {bytes.Length:N0}-byte shard allocated {allocated:N0} bytes");

        // And the store opens with every value.
        await using var store = await StellarStore.OpenAsync(path, Options());
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        Assert.Equal(written.Count, chunks.Count);
        foreach (var (id, voxels) in written)
        {
            Assert.Equal(voxels, chunks.Get(id)!.Voxels);
        }
    }

    /// <summary>
    /// The original shard, then crafted headers every 44 bytes up to <paramref name="length"/>: each valid on its
    /// own, of this collection and shard, with a later sequence, and a body claimed to the end of the file.
    /// </summary>
    private static byte[] Craft(byte[] original, BlockHeader last, long length)
    {
        var bytes = new byte[length];
        original.CopyTo(bytes, 0);
        var sequence = last.Sequence;
        for (long p = original.Length; p + BlockHeader.Size <= length; p += BlockHeader.Size)
        {
            var payload = (int)(length - p - BlockHeader.Size);
            var header = new BlockHeader(BlockFlags.None, last.CollectionId, last.ShardId, ++sequence, 0, payload, payload);
            header.WriteTo(bytes.AsSpan((int)p));
            Assert.NotNull(BlockHeader.TryRead(bytes.AsSpan((int)p), out _));
        }

        return bytes;
    }

    /// <summary>The chain of the store's only collection, as open builds it.</summary>
    private static ShardChain Chain(FileStorage storage)
    {
        var manifest = ManifestStore.Open(storage, storage.Location, new StoreOptions(), out _);
        return new ShardChain(storage, manifest, manifest.Collections.Single().Id, 64L << 20, Durability.WriteThrough);
    }

    /// <summary>Writes <paramref name="count"/> chunks of random bytes, one block each, and returns them by id.</summary>
    private async Task<Dictionary<string, byte[]>> WriteAsync(string path, int count, int valueBytes)
    {
        var random = new Random(5);
        var written = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        await using var store = await StellarStore.OpenAsync(path, Options());
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        for (var i = 0; i < count; i++)
        {
            var voxels = new byte[valueBytes];
            random.NextBytes(voxels);
            written[$"chunk-{i}"] = voxels;
            await chunks.InsertAsync(new Chunk { Id = $"chunk-{i}", Voxels = voxels });
        }

        return written;
    }
}
