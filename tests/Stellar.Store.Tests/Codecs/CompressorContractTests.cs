using Stellar.Store.Codecs;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// The <see cref="ICompressor"/> contract, written once: every compressor gets a subclass that says how to make one.
/// </summary>
public abstract class CompressorContractTests
{
    public static IEnumerable<object[]> ShrinkingPayloads() =>
        new[] { CodecPayloads.Tiny, CodecPayloads.Text2K, CodecPayloads.Compressible16M }.Select(name => new object[] { name });

    public static IEnumerable<object[]> DecliningPayloads() =>
        new[] { CodecPayloads.Empty, CodecPayloads.OneByte, CodecPayloads.Random4K }.Select(name => new object[] { name });

    private protected abstract ICompressor CreateCompressor();

    [Theory]
    [MemberData(nameof(ShrinkingPayloads))]
    public void TryCompress_CompressiblePayload_ShrinksAndRoundTrips(string payload)
    {
        var compressor = CreateCompressor();
        var source = CodecPayloads.Get(payload);

        var compressed = Compress(compressor, source);

        Assert.True(compressed.Length < source.Length, $"{payload}: {compressed.Length} bytes from {source.Length}");
        var restored = new GuardedBuffer(source.Length);
        compressor.Decompress(compressed, restored.Span);
        restored.AssertGuardsIntact();
        Assert.True(restored.Span.SequenceEqual(source), $"{payload}: decompressed bytes differ");
    }

    [Theory]
    [MemberData(nameof(ShrinkingPayloads))]
    public void MaxDecompressedLength_OfACompressedPayload_IsAtLeastTheLengthItDecodesTo(string payload)
    {
        // Decoding refuses a stated raw length above this bound, so a bound below a real block's would lose data.
        var compressor = CreateCompressor();
        var source = CodecPayloads.Get(payload);

        var compressed = Compress(compressor, source);

        Assert.True(source.Length <= compressor.MaxDecompressedLength(compressed.Length),
            $"{payload}: {source.Length} bytes came from {compressed.Length}, over the bound {compressor.MaxDecompressedLength(compressed.Length)}");
    }

    [Theory]
    [MemberData(nameof(DecliningPayloads))]
    public void TryCompress_PayloadThatCannotShrink_ReturnsMinusOneWithinBounds(string payload)
    {
        var compressor = CreateCompressor();
        var source = CodecPayloads.Get(payload);
        var destination = new GuardedBuffer(compressor.MaxCompressedLength(source.Length));

        var written = compressor.TryCompress(source, destination.Span);

        Assert.Equal(-1, written);
        destination.AssertGuardsIntact();
    }

    [Fact]
    public void Decompress_EmptySourceIntoEmptyDestination_Succeeds()
    {
        CreateCompressor().Decompress([], []);
    }

    [Fact]
    public void Decompress_EmptySourceIntoNonEmptyDestination_ThrowsInvalidDataException()
    {
        var compressor = CreateCompressor();

        Assert.Throws<InvalidDataException>(() => compressor.Decompress([], new byte[16]));
    }

    [Fact]
    public void Decompress_EveryTruncation_ThrowsInvalidDataException()
    {
        var compressor = CreateCompressor();
        var source = CodecPayloads.Get(CodecPayloads.Text2K);
        var compressed = Compress(compressor, source);

        for (var length = 0; length < compressed.Length; length++)
        {
            var destination = new GuardedBuffer(source.Length);
            var truncated = compressed[..length];
            Assert.Throws<InvalidDataException>(() => compressor.Decompress(truncated, destination.Span));
            destination.AssertGuardsIntact();
        }
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(1)]
    [InlineData(-100)]
    [InlineData(100)]
    public void Decompress_WrongDestinationLength_ThrowsInvalidDataException(int difference)
    {
        var compressor = CreateCompressor();
        var source = CodecPayloads.Get(CodecPayloads.Text2K);
        var compressed = Compress(compressor, source);
        var destination = new GuardedBuffer(source.Length + difference);

        Assert.Throws<InvalidDataException>(() => compressor.Decompress(compressed, destination.Span));
        destination.AssertGuardsIntact();
    }

    /// <summary>
    /// A compressor without its own checksum cannot notice every changed byte (a changed literal decodes to changed
    /// content of the right length; the block checksum catches that). What it must do for any input: throw
    /// <see cref="InvalidDataException"/> or fill exactly the destination, and never write outside it.
    /// </summary>
    [Fact]
    public void Decompress_EverySingleBitFlip_ThrowsInvalidDataExceptionOrStaysWithinDestination()
    {
        var compressor = CreateCompressor();
        var source = CodecPayloads.Get(CodecPayloads.Text2K);
        var compressed = Compress(compressor, source);
        var detected = 0;

        for (var bit = 0; bit < compressed.Length * 8; bit++)
        {
            var corrupt = (byte[])compressed.Clone();
            corrupt[bit / 8] ^= (byte)(1 << (bit % 8));
            var destination = new GuardedBuffer(source.Length);
            try
            {
                compressor.Decompress(corrupt, destination.Span);
            }
            catch (InvalidDataException)
            {
                detected++;
            }

            destination.AssertGuardsIntact();
        }

        Assert.True(detected > 0, "no flip of the block's structure was detected");
    }

    [Fact]
    public void Decompress_RandomBytesAsInput_ThrowsInvalidDataExceptionOrStaysWithinDestination()
    {
        var compressor = CreateCompressor();
        for (var seed = 0; seed < 200; seed++)
        {
            var garbage = CodecPayloads.RandomBytes(64 + seed, seed);
            var destination = new GuardedBuffer(1024);
            try
            {
                compressor.Decompress(garbage, destination.Span);
            }
            catch (InvalidDataException)
            {
                // Expected for almost every input; what matters is that nothing else is thrown or overwritten.
            }

            destination.AssertGuardsIntact();
        }
    }

    [Fact]
    public void TryCompressAndDecompress_FromManyThreads_RoundTrip()
    {
        var compressor = CreateCompressor();

        Parallel.For(0, 256, new ParallelOptions { MaxDegreeOfParallelism = 16 }, i =>
        {
            var source = CodecPayloads.EnglishLikeText(1024 + i * 37, seed: i);
            var compressed = Compress(compressor, source);
            var restored = new byte[source.Length];
            compressor.Decompress(compressed, restored);
            Assert.Equal(source, restored);
        });
    }

    /// <summary>Compresses into a guarded buffer of exactly <see cref="ICompressor.MaxCompressedLength"/> bytes.</summary>
    private static byte[] Compress(ICompressor compressor, byte[] source)
    {
        var destination = new GuardedBuffer(compressor.MaxCompressedLength(source.Length));
        var written = compressor.TryCompress(source, destination.Span);
        destination.AssertGuardsIntact();
        Assert.True(written >= 0, "the payload was expected to compress");
        Assert.True(written <= destination.Length, "wrote more than MaxCompressedLength promised");
        return destination.Span[..written].ToArray();
    }
}
