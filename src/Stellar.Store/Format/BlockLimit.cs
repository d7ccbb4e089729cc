using System.Diagnostics;
using Stellar.Store.Codecs;

namespace Stellar.Store.Format;

/// <summary>
/// How many raw record bytes one block may hold. The reader refuses a block whose payload or raw length passes
/// <see cref="BlockHeader.MaxPayloadLength"/>, so a writer that produced one would acknowledge a write it can never
/// read back; every block the engine writes is therefore checked against this limit before anything is written.
/// </summary>
internal static class BlockLimit
{
    /// <summary>Room for compressor growth in <see cref="MaxEncodedLength"/>: one byte per this many raw bytes.</summary>
    public const int GrowthDivisor = 200;

    /// <summary>Fixed room in <see cref="MaxEncodedLength"/> beyond header and growth: a compressor's constant and a cipher's tag.</summary>
    public const int FixedSlack = 64;

    /// <summary>
    /// The largest raw length whose encoded block (header, then the compressor's worst case or the raw bytes when
    /// compression does not pay, then the cipher's tag) stays within <see cref="BlockHeader.MaxPayloadLength"/>.
    /// The header is counted too, so the whole block, not only its payload, fits that bound.
    /// </summary>
    /// <param name="compressor">The compressor new blocks use; null when they are stored raw.</param>
    /// <param name="cipherOverhead">Bytes the cipher adds to a payload (0 for a plain store).</param>
    public static int MaxRawLength(ICompressor? compressor, int cipherOverhead)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(cipherOverhead);
        var room = BlockHeader.MaxPayloadLength - BlockHeader.MaxSize - cipherOverhead;

        // A compressor's worst case grows with its input, so the largest raw length that fits is found by bisection.
        int low = 0, high = room;
        while (low < high)
        {
            var mid = low + ((high - low + 1) / 2);
            if (EncodedBody(compressor, mid) <= room)
            {
                low = mid;
            }
            else
            {
                high = mid - 1;
            }
        }

        return low;
    }

    /// <summary>
    /// A bound on the whole encoded length of a block of <paramref name="rawBytes"/> record bytes, for planning shard
    /// space before the block is encoded: the header, the raw bytes, room for a compressor that grows its input
    /// (<see cref="GrowthDivisor"/>: LZ4's worst case is one byte in 255 plus 16), and <see cref="FixedSlack"/> for that
    /// 16 and the cipher's tag. It holds for every codec the store builds (tests check it against each).
    /// </summary>
    public static long MaxEncodedLength(long rawBytes)
    {
        Debug.Assert(rawBytes >= 0, "a block holds no negative number of bytes");
        return BlockHeader.MaxSize + rawBytes + (rawBytes / GrowthDivisor) + FixedSlack;
    }

    /// <summary>The most payload bytes (before the tag) a raw length can encode to: the compressed worst case, or the raw bytes.</summary>
    private static long EncodedBody(ICompressor? compressor, int rawLength) =>
        compressor is null ? rawLength : Math.Max(rawLength, (long)compressor.MaxCompressedLength(rawLength));
}
