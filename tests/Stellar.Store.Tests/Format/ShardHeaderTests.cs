using Stellar.Store.Format;

namespace Stellar.Store.Tests.Format;

public sealed class ShardHeaderTests
{
    // Computed independently (a bit-by-bit CRC32C, not the BCL's): collection 3, shard 5, salt 00 01 .. 0f,
    // version 3 (compact block headers).
    private const string GoldenHeader = "53534832030000000300000005000000000102030405060708090a0b0c0d0e0fb49887a6";

    // The same header as format 2 wrote it (version 2, fixed block headers), which every build reads.
    private const string GoldenVersion2Header = "53534832020000000300000005000000000102030405060708090a0b0c0d0e0f80139204";

    [Fact]
    public void Header_Size_Is36Bytes() => Assert.Equal(36, ShardHeader.Size);

    [Fact]
    public void WriteTo_GoldenHeader_MatchesItsBytes()
    {
        var header = new ShardHeader(3, 5, Enumerable.Range(0, 16).Select(i => (byte)i).ToArray());

        Assert.Equal(GoldenHeader, Convert.ToHexString(header.ToArray()).ToLowerInvariant());
    }

    [Fact]
    public void TryRead_GoldenHeader_ReturnsItsFields()
    {
        var header = ShardHeader.TryRead(Convert.FromHexString(GoldenHeader), out var problem);

        Assert.Null(problem);
        Assert.Equal((3u, 5u), (header!.Value.CollectionId, header.Value.ShardId));
        Assert.Equal(Enumerable.Range(0, 16).Select(i => (byte)i), header.Value.Salt);
        Assert.True(header.Value.HasCompactBlocks);
    }

    [Fact]
    public void TryRead_GoldenVersion2Header_ReturnsAShardOfFixedBlockHeaders()
    {
        var header = ShardHeader.TryRead(Convert.FromHexString(GoldenVersion2Header), out var problem);

        Assert.Null(problem);
        Assert.Equal((3u, 5u, (ushort)2), (header!.Value.CollectionId, header.Value.ShardId, header.Value.Version));
        Assert.False(header.Value.HasCompactBlocks);
    }

    [Fact]
    public void TryRead_AnyFlippedByte_IsRefusedWithAReason()
    {
        var golden = Convert.FromHexString(GoldenHeader);
        for (var i = 0; i < golden.Length; i++)
        {
            var damaged = (byte[])golden.Clone();
            damaged[i] ^= 0x10;

            Assert.Null(ShardHeader.TryRead(damaged, out var problem));
            Assert.False(string.IsNullOrEmpty(problem));
        }
    }

    [Fact]
    public void New_TwoHeadersOfOneShard_HaveDifferentSalts() =>
        Assert.NotEqual(ShardHeader.New(1, 1).Salt, ShardHeader.New(1, 1).Salt);
}
