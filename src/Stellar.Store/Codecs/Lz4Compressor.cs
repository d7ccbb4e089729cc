using K4os.Compression.LZ4;

namespace Stellar.Store.Codecs;

/// <summary>
/// LZ4 block compression (K4os.Compression.LZ4, fast level). The output is a bare LZ4 block: no frame, no length
/// prefix and no checksum, because the block header already records the uncompressed length and the block's
/// CRC32C (or AES-GCM tag) is verified before anything is decompressed.
/// </summary>
/// <remarks>
/// <para>Thread safety: stateless; every member may be called from any thread concurrently.</para>
/// <para>
/// <see cref="Decompress"/> never writes outside its destination and throws <see cref="InvalidDataException"/>
/// for input that is structurally malformed or does not decode to exactly the destination's length. LZ4 has no
/// checksum of its own, so a changed literal byte still decodes, to different content of the right length:
/// integrity is the job of the block's CRC32C and authentication tag, not of this codec.
/// </para>
/// </remarks>
internal sealed class Lz4Compressor : ICompressor
{
    /// <summary>The id of LZ4 in the manifest. No compression has no compressor (and no id) at all.</summary>
    public const byte CompressorId = 1;

    /// <inheritdoc />
    public byte Id => CompressorId;

    /// <summary>
    /// One byte less than <paramref name="length"/> (zero for empty input): <see cref="TryCompress"/> gives up
    /// rather than write output that is not smaller than its input, so callers never need LZ4's worst-case bound.
    /// </summary>
    public int MaxCompressedLength(int length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        return Math.Max(0, length - 1);
    }

    /// <summary>
    /// 255 bytes per compressed byte, plus 16. In the LZ4 block format a byte of input yields at most 255 bytes of
    /// output (a length byte of 255 extends a match by 255); a sequence's token, offset and last length byte cost at
    /// least 4 bytes and add at most 19 more, so 255 per byte already covers them, and the 16 covers tiny inputs.
    /// K4os exposes only the compression bound, not this one.
    /// </summary>
    public long MaxDecompressedLength(int compressedLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(compressedLength);
        return (255L * compressedLength) + 16;
    }

    /// <summary>
    /// Compresses <paramref name="source"/> into <paramref name="destination"/>. Returns the compressed length, or
    /// -1 when the output would not be smaller than the input (empty input included) or would not fit in
    /// <paramref name="destination"/>. Nothing is written past <see cref="MaxCompressedLength"/> bytes.
    /// </summary>
    public int TryCompress(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        if (source.Length <= 1)
        {
            return -1;
        }

        // LZ4's limited-output mode stops as soon as the output would pass the capacity, so incompressible data
        // is rejected early instead of being compressed in full and thrown away.
        var capacity = Math.Min(destination.Length, source.Length - 1);
        var written = LZ4Codec.Encode(source, destination[..capacity], LZ4Level.L00_FAST);
        return written > 0 ? written : -1;
    }

    /// <summary>
    /// Decompresses <paramref name="source"/> into exactly <paramref name="destination"/>'s length. An empty source
    /// into an empty destination is accepted (there is nothing to decode); any other input must be a complete LZ4
    /// block that decodes to exactly that length.
    /// </summary>
    /// <exception cref="InvalidDataException">The input is malformed or decodes to a different length.</exception>
    public void Decompress(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        // K4os decodes with LZ4's bounds-checked ("safe") decoder: it returns -1 instead of reading or writing
        // outside either span, and a short count when the input ends before the destination is full.
        var decoded = LZ4Codec.Decode(source, destination);
        if (decoded < 0)
        {
            throw new InvalidDataException(
                $"LZ4 block of {source.Length} bytes is malformed or decodes to more than {destination.Length} bytes.");
        }

        if (decoded != destination.Length)
        {
            throw new InvalidDataException(
                $"LZ4 block of {source.Length} bytes decodes to {decoded} bytes; expected {destination.Length}.");
        }
    }
}
