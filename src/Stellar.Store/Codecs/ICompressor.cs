namespace Stellar.Store.Codecs;

/// <summary>Compresses block payloads. Thread safety: stateless, every member may be called from any thread.</summary>
internal interface ICompressor
{
    /// <summary>The id recorded in the manifest.</summary>
    byte Id { get; }

    /// <summary>The largest output <see cref="TryCompress"/> may write for an input of <paramref name="length"/> bytes.</summary>
    int MaxCompressedLength(int length);

    /// <summary>
    /// The most bytes <paramref name="compressedLength"/> bytes of this codec's output can decode to: a stored raw
    /// length above it cannot be right, and is refused before a buffer of that size is allocated.
    /// </summary>
    long MaxDecompressedLength(int compressedLength);

    /// <summary>
    /// Compresses <paramref name="source"/> into <paramref name="destination"/>. Returns the compressed length, or
    /// -1 when the output would not be smaller than the input (the block is then stored raw).
    /// </summary>
    int TryCompress(ReadOnlySpan<byte> source, Span<byte> destination);

    /// <summary>
    /// Decompresses <paramref name="source"/> into exactly <paramref name="destination"/>'s length.
    /// Throws <see cref="InvalidDataException"/> when the input is malformed or does not fill the destination.
    /// </summary>
    void Decompress(ReadOnlySpan<byte> source, Span<byte> destination);
}
