using Stellar.Store.Codecs;
using Stellar.Store.Format;

namespace Stellar.Store.Tests.Format;

public sealed class BlockFormatTests
{
    // Computed independently (a bit-by-bit CRC32C, not the BCL's): collection 3, shard 5, sequence 9,
    // one put of key 7 (MessagePack 0x07) to "hi" (MessagePack a2 68 69), stored raw, as format 3 writes it: the
    // compact header "SSB3", flags 00, varints 03 05 09 01 06 06, the header check 7280 (low half of the CRC32C of
    // the bytes before it), the block CRC, then the compact record 81 (put, key length 1) 07 03 a2 68 69.
    private const string GoldenBlock = "535342330003050901060672803da2895a810703a26869";

    // The same block as formats 1 and 2 wrote it (fixed 44-byte header, fixed record layout), which every build reads.
    private const string GoldenFixedBlock =
        "535342310100000003000000050000000900000000000000010000000d0000000d000000d1b0069caa4fe2b801010000000703000000a26869";

    [Fact]
    public void Header_Size_Is44Bytes() => Assert.Equal(44, BlockHeader.Size);

    [Fact]
    public void CompactHeader_OfAOneRecordBlock_Is17Bytes()
    {
        var header = BlockHeader.TryRead(Convert.FromHexString(GoldenBlock), out _);

        Assert.Equal(17, header!.Value.HeaderLength);
        Assert.Equal(13, header.Value.AadLength);
    }

    [Fact]
    public void Encode_GoldenBlock_MatchesItsBytes()
    {
        var record = new byte[RecordFormat.PutOverhead + 4];
        var length = RecordFormat.Write(record, RecordKind.Put, new byte[] { 0x07 }, new byte[] { 0xa2, 0x68, 0x69 });
        var codec = new BlockCodec(null, new Lz4Compressor(), null);

        var block = codec.Encode(3, 5, default, 9, 1, BlockFlags.None, record.AsSpan(0, length), out var blockLength);

        Assert.Equal(GoldenBlock, Convert.ToHexString(block, 0, blockLength).ToLowerInvariant());
    }

    [Theory]
    [InlineData(GoldenBlock)]
    [InlineData(GoldenFixedBlock)]
    public void Decode_GoldenBlock_ReturnsTheRecord(string golden)
    {
        var block = Convert.FromHexString(golden);
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

    [Theory]
    [InlineData(GoldenBlock)]
    [InlineData(GoldenFixedBlock)]
    public void Decode_EveryFlippedByte_IsDetected(string hex)
    {
        var golden = Convert.FromHexString(hex);
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
