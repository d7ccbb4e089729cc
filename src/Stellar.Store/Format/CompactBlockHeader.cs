using System.Buffers.Binary;

namespace Stellar.Store.Format;

/// <summary>
/// The block header of format 3, written in front of every new block: the fields of the format-2 header with the
/// numbers as varints (<see cref="Varint"/>), so that a block of one small record is not mostly header.
/// <code>
/// 00-03 [u32]    magic "SSB3"
/// 04    [u8]     flags (BlockFlags)
/// 05..  [varint] collection id
///       [varint] shard id
///       [varint] block sequence
///       [varint] record count
///       [varint] payload length: stored bytes after the header (with the tag when encrypted)
///       [varint] raw length: the record bytes before compression and encryption
///       [u16]    header check: the low 16 bits of CRC32C over the header bytes before it
///       [u32]    block CRC32C over the header bytes before it and the payload
/// </code>
/// Every byte before the block CRC is the associated data of the block's AES-GCM encryption.
/// </summary>
internal static class CompactBlockHeader
{
    public const uint Magic = 0x33425353; // "SSB3" read as little-endian

    /// <summary>Magic, flags, the shortest varints, header check and block CRC.</summary>
    public const int MinSize = 4 + 1 + 6 + 2 + 4;

    /// <summary>The longest header: every varint at its widest.</summary>
    public const int MaxSize = 4 + 1 + (5 * Varint.MaxLength32) + Varint.MaxLength64 + 2 + 4;

    private const int FlagsOffset = 4;
    private const int FieldsOffset = 5;
    private const int CheckLength = 2;
    private const int BlockCrcLength = 4;

    /// <summary>The length of the header that holds these values.</summary>
    public static int LengthOf(in BlockHeader header) =>
        FieldsOffset
        + Varint.LengthOf(header.CollectionId) + Varint.LengthOf(header.ShardId) + Varint.LengthOf(header.Sequence)
        + Varint.LengthOf(header.RecordCount) + Varint.LengthOf((uint)header.PayloadLength) + Varint.LengthOf((uint)header.RawLength)
        + CheckLength + BlockCrcLength;

    /// <summary>Writes everything but the block CRC, which needs the payload.</summary>
    public static void Write(in BlockHeader header, Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(destination, Magic);
        destination[FlagsOffset] = (byte)header.Flags;
        var position = FieldsOffset;
        Varint.Write(destination, ref position, header.CollectionId);
        Varint.Write(destination, ref position, header.ShardId);
        Varint.Write(destination, ref position, header.Sequence);
        Varint.Write(destination, ref position, header.RecordCount);
        Varint.Write(destination, ref position, (uint)header.PayloadLength);
        Varint.Write(destination, ref position, (uint)header.RawLength);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[position..], Check(destination[..position]));
    }

    /// <summary>
    /// Parses the fields and checks the header check; the caller checks flags and lengths. Null with a reason when
    /// the bytes do not form a header.
    /// </summary>
    public static BlockHeader? TryRead(ReadOnlySpan<byte> source, out string? problem)
    {
        problem = "the header is cut short";
        if (source.Length < MinSize)
        {
            return null;
        }

        var position = FieldsOffset;
        if (!Varint.TryRead(source, ref position, Varint.MaxLength32, out var collection)
            || !Varint.TryRead(source, ref position, Varint.MaxLength32, out var shard)
            || !Varint.TryRead(source, ref position, Varint.MaxLength64, out var sequence)
            || !Varint.TryRead(source, ref position, Varint.MaxLength32, out var count)
            || !Varint.TryReadInt(source, ref position, out var payloadLength)
            || !Varint.TryReadInt(source, ref position, out var rawLength)
            || collection > uint.MaxValue || shard > uint.MaxValue || count > uint.MaxValue)
        {
            problem = source.Length < MaxSize ? "the header is cut short" : "a header field does not decode";
            return null;
        }

        if (source.Length < position + CheckLength + BlockCrcLength)
        {
            return null;
        }

        if (BinaryPrimitives.ReadUInt16LittleEndian(source[position..]) != Check(source[..position]))
        {
            problem = "header checksum mismatch";
            return null;
        }

        problem = null;
        return new BlockHeader((BlockFlags)source[FlagsOffset], (uint)collection, (uint)shard, sequence, (uint)count, payloadLength, rawLength, Compact: true);
    }

    /// <summary>
    /// The header's length, from where its varints end (each ends at its first byte under 0x80), for a header
    /// <see cref="TryRead"/> accepted or one being sealed; never more than <see cref="MaxSize"/>.
    /// </summary>
    public static int LengthAt(ReadOnlySpan<byte> header)
    {
        var position = FieldsOffset;
        for (var i = 0; i < 6; i++)
        {
            var end = position + (i == 2 ? Varint.MaxLength64 : Varint.MaxLength32);
            while (position < end - 1 && position < header.Length && header[position] >= 0x80)
            {
                position++;
            }

            position++;
        }

        return position + CheckLength + BlockCrcLength;
    }

    private static ushort Check(ReadOnlySpan<byte> fields) => (ushort)Crc32C.Compute(fields);
}
