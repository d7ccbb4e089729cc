using System.Text;
using Stellar.Store.Codecs;

namespace Stellar.Store.Tests.Codecs;

public sealed class Lz4CompressorTests : CompressorContractTests
{
    private const int MatchOffsetIndex = 5;

    // A hand-written LZ4 block: 4 literals "abcd", then a match of 8 bytes at offset 4, then the last 5 literals
    // "efghi". It decodes to "abcdabcdabcdefghi" (17 bytes); byte 5 is the low byte of the match offset.
    private static readonly byte[] HandWrittenBlock =
    [
        0x44, (byte)'a', (byte)'b', (byte)'c', (byte)'d', 0x04, 0x00,
        0x50, (byte)'e', (byte)'f', (byte)'g', (byte)'h', (byte)'i',
    ];

    [Fact]
    public void Id_IsOne()
    {
        Assert.Equal(1, new Lz4Compressor().Id);
    }

    [Theory]
    [InlineData(0, 0)]
    [InlineData(1, 0)]
    [InlineData(2, 1)]
    [InlineData(65536, 65535)]
    public void MaxCompressedLength_OfLength_IsOneLessBecauseLargerOutputIsDeclined(int length, int expected)
    {
        Assert.Equal(expected, new Lz4Compressor().MaxCompressedLength(length));
    }

    [Fact]
    public void MaxCompressedLength_NegativeLength_ThrowsArgumentOutOfRangeException()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new Lz4Compressor().MaxCompressedLength(-1));
    }

    [Fact]
    public void TryCompress_DestinationShorterThanOutput_ReturnsMinusOneWithinBounds()
    {
        var compressor = new Lz4Compressor();
        var source = CodecPayloads.Get(CodecPayloads.Text2K);
        var fullLength = compressor.TryCompress(source, new byte[compressor.MaxCompressedLength(source.Length)]);
        var destination = new GuardedBuffer(fullLength - 1);

        var written = compressor.TryCompress(source, destination.Span);

        Assert.Equal(-1, written);
        destination.AssertGuardsIntact();
    }

    [Fact]
    public void Decompress_HandWrittenBlock_DecodesTheBareLz4BlockFormat()
    {
        var destination = new byte[17];

        new Lz4Compressor().Decompress(HandWrittenBlock, destination);

        Assert.Equal("abcdabcdabcdefghi", Encoding.ASCII.GetString(destination));
    }

    [Fact]
    public void Decompress_MatchOffsetBeforeStartOfOutput_ThrowsInvalidDataException()
    {
        var block = (byte[])HandWrittenBlock.Clone();
        block[MatchOffsetIndex] = 9;

        Assert.Throws<InvalidDataException>(() => new Lz4Compressor().Decompress(block, new byte[17]));
    }

    [Fact]
    public void Decompress_LiteralLengthPastEndOfInput_ThrowsInvalidDataException()
    {
        var block = (byte[])HandWrittenBlock.Clone();
        block[0] = 0xE4;

        Assert.Throws<InvalidDataException>(() => new Lz4Compressor().Decompress(block, new byte[17]));
    }

    private protected override ICompressor CreateCompressor() => new Lz4Compressor();
}
