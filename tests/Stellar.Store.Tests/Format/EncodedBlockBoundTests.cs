using K4os.Compression.LZ4;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Tests.Codecs;

namespace Stellar.Store.Tests.Format;

/// <summary>
/// The one bound on an encoded block's length (<see cref="BlockLimit.MaxEncodedLength"/>), which the commit path and
/// compaction plan shard space with before a block is encoded: a block longer than its bound would not fit the space
/// its shard kept for it.
/// </summary>
public sealed class EncodedBlockBoundTests : IDisposable
{
    /// <summary>AES-GCM's tag, from the GCM specification (128 bits), not from the cipher under test.</summary>
    private const int GcmTagBytes = 16;

    private static readonly int[] RawLengths = [0, 1, 15, 16, 17, 199, 200, 201, 255, 256, 4_096, 65_536, 1 << 20, 16 << 20, 255 << 20];

    private readonly AesGcmBlockCipher _cipher = new(CodecPayloads.RandomBytes(32, seed: 5));

    public void Dispose() => _cipher.Dispose();

    [Fact]
    public void MaxEncodedLength_AnyRawLength_CoversLz4WorstCaseGrowthAndTheGcmTag()
    {
        foreach (var raw in RawLengths)
        {
            // LZ4's own worst case (K4os's bound), as if a compressor kept output larger than its input.
            var worst = BlockHeader.MaxSize + (long)LZ4Codec.MaximumOutputSize(raw) + GcmTagBytes;
            Assert.True(BlockLimit.MaxEncodedLength(raw) >= worst, $"{raw} raw bytes: bound {BlockLimit.MaxEncodedLength(raw)} < LZ4 worst case {worst}");
        }
    }

    [Fact]
    public void MaxEncodedLength_AnyRawLength_CoversTheStoresCompressorAndCipher()
    {
        var compressor = new Lz4Compressor();
        foreach (var raw in RawLengths)
        {
            var worst = BlockHeader.MaxSize + (long)Math.Max(raw, compressor.MaxCompressedLength(raw)) + _cipher.Overhead;
            Assert.True(BlockLimit.MaxEncodedLength(raw) >= worst, $"{raw} raw bytes: bound {BlockLimit.MaxEncodedLength(raw)} < {worst}");
        }
    }

    [Theory]
    [InlineData("none")]
    [InlineData("lz4")]
    [InlineData("aes-gcm")]
    [InlineData("lz4+aes-gcm")]
    public void Encode_IncompressibleAndCompressiblePayloads_StayWithinTheBound(string combination)
    {
        var codec = new BlockCodec(
            combination.Contains("lz4", StringComparison.Ordinal) ? new Lz4Compressor() : null,
            new Lz4Compressor(),
            combination.Contains("aes", StringComparison.Ordinal) ? _cipher : null);
        foreach (var length in new[] { 0, 1, 17, 200, 4_096, 65_536, 1 << 20 })
        {
            foreach (var raw in new[] { CodecPayloads.RandomBytes(length, seed: length), new byte[length] })
            {
                var block = codec.Encode(1, 2, default, 3, 1, BlockFlags.None, raw, out var encoded);
                Assert.True(encoded <= BlockLimit.MaxEncodedLength(raw.Length), $"{combination}, {length} bytes: encoded to {encoded}, bound {BlockLimit.MaxEncodedLength(raw.Length)}");
                System.Buffers.ArrayPool<byte>.Shared.Return(block);
            }
        }
    }
}
