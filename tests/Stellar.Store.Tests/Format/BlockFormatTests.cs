using Stellar.Store.Codecs;
using Stellar.Store.Format;

namespace Stellar.Store.Tests.Format;

public sealed class BlockFormatTests
{
    // Computed independently (a bit-by-bit CRC32C, not the BCL's): collection 3, shard 5, sequence 9,
    // one put of key 7 (MessagePack 0x07) to "hi" (MessagePack a2 68 69), stored raw.
    private const string GoldenBlock =
        "535342310100000003000000050000000900000000000000010000000d0000000d000000d1b0069caa4fe2b801010000000703000000a26869";

    [Fact]
    public void Header_Size_Is44Bytes() => Assert.Equal(44, BlockHeader.Size);

    [Fact]
    public void Encode_GoldenBlock_MatchesItsBytes()
    {
        var record = new byte[RecordFormat.PutOverhead + 4];
        var length = RecordFormat.Write(record, RecordKind.Put, new byte[] { 0x07 }, new byte[] { 0xa2, 0x68, 0x69 });
        var codec = new BlockCodec(null, new Lz4Compressor(), null);

        var block = codec.Encode(3, 5, default, 9, 1, BlockFlags.None, record.AsSpan(0, length), out var blockLength);

        Assert.Equal(GoldenBlock, Convert.ToHexString(block, 0, blockLength).ToLowerInvariant());
    }

    [Fact]
    public void Decode_GoldenBlock_ReturnsTheRecord()
    {
        var block = Convert.FromHexString(GoldenBlock);
        var header = BlockHeader.TryRead(block, out var problem);
        Assert.Null(problem);
        var raw = new BlockCodec(null, new Lz4Compressor(), null).Decode(block, header!.Value, default, "golden", 0);

        var position = 0;
        Assert.True(RecordFormat.TryRead(raw, ref position, out var kind, out var key, out var value));
        Assert.Equal(RecordKind.Put, kind);
        Assert.Equal(new byte[] { 0x07 }, key.ToArray());
        Assert.Equal(new byte[] { 0xa2, 0x68, 0x69 }, value.ToArray());
        Assert.Equal(raw.Length, position);
    }

    [Fact]
    public void Crc32C_KnownVector_Matches()
    {
        // The standard check value of CRC-32C over "123456789".
        Assert.Equal(0xE3069283u, Crc32C.Compute("123456789"u8));
    }

    [Fact]
    public void Decode_EveryFlippedByte_IsDetected()
    {
        var golden = Convert.FromHexString(GoldenBlock);
        var codec = new BlockCodec(null, new Lz4Compressor(), null);
        for (var i = 0; i < golden.Length; i++)
        {
            var block = (byte[])golden.Clone();
            block[i] ^= 0x10;
            var header = BlockHeader.TryRead(block, out _);
            if (header is null)
            {
                continue;
            }

            Assert.Throws<CorruptBlockException>(() => codec.Decode(block.AsSpan(0, Math.Min(block.Length, header.Value.BlockLength)), header.Value, default, "flip", 0));
        }
    }
}
