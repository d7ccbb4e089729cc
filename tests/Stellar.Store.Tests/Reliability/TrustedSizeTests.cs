using Akka.Actor;
using Akka.Configuration;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Tests.Api;
using Xunit.Abstractions;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Sizes read from disk are checked against the bytes that back them before anything is allocated for them: a
/// block header resealed with a forged raw length or record count costs no more memory than its bytes justify,
/// and the shard size option is bounded so every offset within a shard stays in range.
/// </summary>
public sealed class TrustedSizeTests : IDisposable
{
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(1);

    private readonly TempDirectory _dir = new();
    private readonly ActorSystem _system = ActorSystem.Create("trusted-size-tests", ConfigurationFactory.ParseString("akka.loglevel = WARNING"));
    private readonly ITestOutputHelper _output;

    public TrustedSizeTests(ITestOutputHelper output) => _output = output;

    public void Dispose()
    {
        _system.Terminate().Wait(HangTimeout);
        _system.Dispose();
        _dir.Dispose();
    }

    private StoreOptions Options(Compression compression) => new()
    {
        Compression = compression,
        MaxDegreeOfParallelism = 1, // decode on the calling thread, so its allocations can be measured there
        ActorSystem = _system,
    };

    [Theory]
    [InlineData(Compression.None)]
    [InlineData(Compression.Lz4)]
    public async Task Load_WhenAResealedHeaderClaimsARawLengthItsPayloadCannotHold_RefusesWithoutAllocatingIt(Compression compression)
    {
        // A 200 MiB raw length on a block of about a kilobyte: plain, it must equal the payload; compressed, LZ4
        // cannot expand 1 byte into more than 255.
        const int Forged = 200 << 20;
        var (shard, offset) = await WriteOneAsync(compression, new Chunk { Id = "small", Voxels = new byte[1000] });
        Forge(shard, offset, header =>
        {
            Assert.Equal(compression == Compression.Lz4, (header.Flags & BlockFlags.Compressed) != 0);
            return header with { RawLength = Forged };
        });

        var (error, allocated) = await LoadAsync(compression);

        _output.WriteLine($"{compression}: allocated {allocated:N0} bytes, {error.Message}");
        Assert.Equal(shard, error.Path);
        Assert.Equal(offset, error.Offset);
        Assert.True(allocated < Forged / 16, $"decoding a forged raw length of {Forged:N0} allocated {allocated:N0} bytes");
    }

    [Fact]
    public async Task Load_WhenAResealedHeaderClaimsMoreRecordsThanItsRecordsHold_RefusesWithoutAllocatingForThem()
    {
        // 4 MiB of zeros compress to a few KiB; a record count of half the raw length passes the header's own
        // check (a compact record takes at least 2 bytes), but the block holds one record.
        var (shard, offset) = await WriteOneAsync(Compression.Lz4, new Chunk { Id = "zeros", Voxels = new byte[4 << 20] });
        var rawLength = 0;
        Forge(shard, offset, header =>
        {
            rawLength = header.RawLength;
            return header with { RecordCount = (uint)(header.RawLength / RecordFormat.MinRecordLength) };
        });

        var (error, allocated) = await LoadAsync(Compression.Lz4);

        _output.WriteLine($"allocated {allocated:N0} bytes for a raw length of {rawLength:N0}: {error.Message}");
        Assert.Equal(shard, error.Path);
        Assert.Equal(offset, error.Offset);
        Assert.True(allocated < 2L * rawLength, $"decoding a forged record count allocated {allocated:N0} bytes for {rawLength:N0} raw bytes");
    }

    [Fact]
    public void MaxDecompressedLength_OfLz4_BoundsTheMostCompressibleInput()
    {
        // Zeros are LZ4's best case: one long match, 255 output bytes per length byte.
        var compressor = new Lz4Compressor();
        var source = new byte[16 << 20];
        var compressed = new byte[compressor.MaxCompressedLength(source.Length)];
        var length = compressor.TryCompress(source, compressed);
        Assert.True(length > 0);
        _output.WriteLine($"{source.Length:N0} zeros compress to {length:N0} bytes, ratio {(double)source.Length / length:F1}");
        Assert.True(source.Length <= compressor.MaxDecompressedLength(length), $"{source.Length:N0} bytes came from {length:N0}");
        Assert.True(compressor.MaxDecompressedLength(length) < 256L * length + 64, "the bound is looser than LZ4's 255:1");
    }

    [Theory]
    [InlineData((1L << 30) + 1)]
    [InlineData(4L << 30)]
    [InlineData(long.MaxValue)]
    public async Task Open_WithMaxShardBytesAboveOneGibibyte_ThrowsNamingTheOption(long maxShardBytes)
    {
        var error = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() =>
            StellarStore.OpenAsync(_dir.Sub("store"), new StoreOptions { MaxShardBytes = maxShardBytes, ActorSystem = _system }));
        Assert.Equal(nameof(StoreOptions.MaxShardBytes), error.ParamName);
        Assert.False(Directory.Exists(_dir.Sub("store")) && Directory.EnumerateFiles(_dir.Sub("store"), "*.shard").Any());
    }

    [Fact]
    public async Task Open_WithMaxShardBytesOfOneGibibyte_Opens()
    {
        Assert.Equal(1L << 30, StoreOptions.MaxShardBytesLimit);
        await using var store = await StellarStore.OpenAsync(_dir.Sub("store"), new StoreOptions { MaxShardBytes = StoreOptions.MaxShardBytesLimit, ActorSystem = _system });
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        await chunks.InsertAsync(new Chunk { Id = "a", Voxels = [1, 2, 3] });
        Assert.Equal([1, 2, 3], chunks.Get("a")!.Voxels);
    }

    /// <summary>Writes one chunk as the store's only block and returns its shard file and offset.</summary>
    private async Task<(string Shard, long Offset)> WriteOneAsync(Compression compression, Chunk chunk)
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options(compression)))
        {
            await store.GetCollection<string, Chunk>("chunks", c => c.Id).InsertAsync(chunk);
        }

        var shard = Directory.GetFiles(_dir.Path, "*.shard").Single();
        return (shard, ShardFiles.Blocks(shard, File.ReadAllBytes(shard)).Single().Offset);
    }

    /// <summary>Rewrites the header of the block at <paramref name="offset"/> and reseals both checksums.</summary>
    private static void Forge(string shard, long offset, Func<BlockHeader, BlockHeader> edit)
    {
        var bytes = File.ReadAllBytes(shard);
        var start = (int)offset;
        var header = BlockHeader.TryRead(bytes.AsSpan(start), out _)!.Value;
        var forged = edit(header);
        var block = BlockSurgery.WithHeader(bytes.AsSpan(start, header.BlockLength), forged);
        Assert.Equal(forged, BlockHeader.TryRead(block, out _));
        File.WriteAllBytes(shard, [.. bytes.AsSpan(0, start), .. block, .. bytes.AsSpan(start + header.BlockLength)]);
    }

    /// <summary>Opens the store (the scan passes: the checksums are resealed) and loads it, measuring what the load allocates.</summary>
    private async Task<(CorruptBlockException Error, long Allocated)> LoadAsync(Compression compression)
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, Options(compression));
        var before = GC.GetAllocatedBytesForCurrentThread();
        var error = Assert.Throws<CorruptBlockException>(() => store.GetCollection<string, Chunk>("chunks", c => c.Id));
        return (error, GC.GetAllocatedBytesForCurrentThread() - before);
    }
}
