using System.Buffers;
using System.Buffers.Binary;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Tests.Reliability;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// The whole block pipeline (compress, encrypt, checksum; and back) in every codec combination a store can have:
/// none, LZ4, AES-GCM, LZ4 + AES-GCM, over the shared payloads from empty to 16 MiB.
/// </summary>
public sealed class BlockCodecContractTests : IDisposable
{
    private const uint Collection = 4;
    private const uint Shard = 9;
    private const ulong Sequence = 77;

    private readonly AesGcmBlockCipher _cipher = new(CodecPayloads.RandomBytes(32, seed: 11));

    public static IEnumerable<object[]> Combinations() =>
        from combination in new[] { "none", "lz4", "aes-gcm", "lz4+aes-gcm" }
        from payload in CodecPayloads.AllNames()
        select new object[] { combination, payload[0] };

    public static TheoryData<string> Encrypted() => new() { "aes-gcm", "lz4+aes-gcm" };

    public void Dispose() => _cipher.Dispose();

    [Theory]
    [MemberData(nameof(Combinations))]
    public void EncodeThenDecode_Payload_RoundTripsWithTheRightFlags(string combination, string payload)
    {
        var codec = Codec(combination);
        var raw = CodecPayloads.Get(payload);

        var (block, header) = Encode(codec, raw);
        var decoded = codec.Decode(block, header, default, "contract", 0);

        Assert.True(decoded.AsSpan().SequenceEqual(raw), $"{combination}, {payload}: decoded bytes differ");
        Assert.Equal(raw.Length, header.RawLength);
        Assert.Equal(combination.Contains("aes", StringComparison.Ordinal), (header.Flags & BlockFlags.Encrypted) != 0);

        // LZ4 is used exactly when it shrinks the payload; a block that does not shrink is stored raw.
        var shrinks = combination.Contains("lz4", StringComparison.Ordinal) && new Lz4Compressor().TryCompress(raw, new byte[Math.Max(0, raw.Length - 1)]) >= 0;
        Assert.Equal(shrinks, (header.Flags & BlockFlags.Compressed) != 0);
        var overhead = combination.Contains("aes", StringComparison.Ordinal) ? _cipher.Overhead : 0;
        if (!shrinks)
        {
            Assert.Equal(raw.Length + overhead, header.PayloadLength);
        }
        else
        {
            Assert.True(header.PayloadLength < raw.Length + overhead, $"{combination}, {payload}: compressed block is not smaller");
        }

        if (overhead > 0 && raw.Length >= 64)
        {
            Assert.False(block.AsSpan(header.HeaderLength).IndexOf(raw.AsSpan(0, 64)) >= 0, "plaintext shows through the encrypted block");
        }
    }

    [Theory]
    [InlineData("none")]
    [InlineData("lz4")]
    [InlineData("aes-gcm")]
    [InlineData("lz4+aes-gcm")]
    public void Decode_EveryFlippedBitOfABlock_ThrowsCorruptBlock(string combination)
    {
        var codec = Codec(combination);
        var (block, _) = Encode(codec, CodecPayloads.EnglishLikeText(300, seed: 3));

        for (var bit = 0; bit < block.Length * 8; bit++)
        {
            var damaged = (byte[])block.Clone();
            damaged[bit / 8] ^= (byte)(1 << (bit % 8));
            var header = BlockHeader.TryRead(damaged, out _);
            if (header is { } h && h.BlockLength == damaged.Length)
            {
                Assert.Throws<CorruptBlockException>(() => codec.Decode(damaged, h, default, "flip", 0));
            }

            // Otherwise the header itself is refused (bad magic, lengths or header checksum): detected as well.
        }
    }

    /// <summary>
    /// Someone who edits a block and recomputes both checksums defeats a plain store (CRCs are not a MAC) but not
    /// an encrypted one: every flipped bit of the header's authenticated bytes or of the payload fails authentication.
    /// </summary>
    [Theory]
    [MemberData(nameof(Encrypted))]
    public void Decode_FlippedBitWithRecomputedChecksums_FailsAuthentication(string combination)
    {
        var codec = Codec(combination);
        var (block, _) = Encode(codec, CodecPayloads.EnglishLikeText(300, seed: 3));
        var checksums = BlockSurgery.Checksums(block);

        for (var bit = 0; bit < block.Length * 8; bit++)
        {
            var index = bit / 8;
            if (index >= checksums.Start.Value && index < checksums.End.Value)
            {
                continue; // the checksums themselves, recomputed below
            }

            var damaged = (byte[])block.Clone();
            damaged[index] ^= (byte)(1 << (bit % 8));
            BlockSurgery.Reseal(damaged);
            var header = BlockHeader.TryRead(damaged, out _);
            if (header is { } h && h.BlockLength == damaged.Length)
            {
                var e = Assert.Throws<CorruptBlockException>(() => codec.Decode(damaged, h, default, "forged", 0));
                Assert.Equal("forged", e.Path);
            }
        }
    }

    private BlockCodec Codec(string combination) => combination switch
    {
        "none" => new BlockCodec(null, new Lz4Compressor(), null),
        "lz4" => new BlockCodec(new Lz4Compressor(), new Lz4Compressor(), null),
        "aes-gcm" => new BlockCodec(null, new Lz4Compressor(), _cipher),
        "lz4+aes-gcm" => new BlockCodec(new Lz4Compressor(), new Lz4Compressor(), _cipher),
        _ => throw new ArgumentOutOfRangeException(nameof(combination), combination, null),
    };

    private static (byte[] Block, BlockHeader Header) Encode(BlockCodec codec, byte[] raw)
    {
        // The payload is opaque here; a header may claim only as many records as its raw length can hold.
        var records = (uint)Math.Min(1, raw.Length / RecordFormat.DeleteOverhead);
        var rented = codec.Encode(Collection, Shard, default, Sequence, records, BlockFlags.None, raw, out var length);
        try
        {
            var block = rented.AsSpan(0, length).ToArray();
            var header = BlockHeader.TryRead(block, out var problem) ?? throw new InvalidOperationException(problem);
            Assert.Equal(length, header.BlockLength);
            Assert.Equal((Collection, Shard, Sequence), (header.CollectionId, header.ShardId, header.Sequence));
            return (block, header);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }
}
