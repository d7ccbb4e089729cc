using System.Buffers.Binary;

namespace Stellar.Store.Format;

/// <summary>
/// The fixed 44-byte header in front of every block. All integers little-endian.
/// <code>
/// 00-03 [u32] magic "SSB1"
/// 04-05 [u16] format version
/// 06-07 [u16] flags (BlockFlags)
/// 08-11 [u32] collection id
/// 12-15 [u32] shard id
/// 16-23 [u64] block sequence (per collection, increasing across shards)
/// 24-27 [u32] record count
/// 28-31 [u32] payload length: stored bytes after the header (with the tag when encrypted)
/// 32-35 [u32] raw length: the record bytes before compression and encryption
/// 36-39 [u32] header CRC32C over bytes 00-35, so lengths can be trusted before the payload is read
/// 40-43 [u32] block CRC32C over bytes 00-39 and the payload
/// </code>
/// Bytes 00-39 are the associated data of the block's AES-GCM encryption, so a moved or edited header fails
/// authentication as well as its checksum.
/// </summary>
internal readonly record struct BlockHeader(
    BlockFlags Flags,
    uint CollectionId,
    uint ShardId,
    ulong Sequence,
    uint RecordCount,
    int PayloadLength,
    int RawLength)
{
    public const int Size = 44;
    public const uint Magic = 0x31425353; // "SSB1" read as little-endian
    public const ushort CurrentVersion = 1;

    /// <summary>The bytes bound into encryption as associated data: everything but the block CRC.</summary>
    public const int AssociatedDataLength = 40;

    /// <summary>Raw and payload lengths are capped so that a damaged length can never ask for a huge allocation.</summary>
    public const int MaxPayloadLength = 256 * 1024 * 1024;

    private const int MagicOffset = 0;
    private const int VersionOffset = 4;
    private const int FlagsOffset = 6;
    private const int CollectionOffset = 8;
    private const int ShardOffset = 12;
    private const int SequenceOffset = 16;
    private const int RecordCountOffset = 24;
    private const int PayloadLengthOffset = 28;
    private const int RawLengthOffset = 32;
    private const int HeaderCrcOffset = 36;
    private const int BlockCrcOffset = 40;

    /// <summary>The whole block's length on disk.</summary>
    public int BlockLength => Size + PayloadLength;

    /// <summary>Writes bytes 00-39 (everything but the block CRC, which needs the payload).</summary>
    public void WriteTo(Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(destination[MagicOffset..], Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[VersionOffset..], CurrentVersion);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[FlagsOffset..], (ushort)Flags);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[CollectionOffset..], CollectionId);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[ShardOffset..], ShardId);
        BinaryPrimitives.WriteUInt64LittleEndian(destination[SequenceOffset..], Sequence);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[RecordCountOffset..], RecordCount);
        BinaryPrimitives.WriteInt32LittleEndian(destination[PayloadLengthOffset..], PayloadLength);
        BinaryPrimitives.WriteInt32LittleEndian(destination[RawLengthOffset..], RawLength);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[HeaderCrcOffset..], Crc32C.Compute(destination[..HeaderCrcOffset]));
    }

    /// <summary>Seals a block whose header and payload are in place: writes the block CRC.</summary>
    public static void WriteBlockCrc(Span<byte> block)
    {
        var crc = Crc32C.Append(Crc32C.Compute(block[..BlockCrcOffset]), block[Size..]);
        BinaryPrimitives.WriteUInt32LittleEndian(block[BlockCrcOffset..], crc);
    }

    /// <summary>
    /// Parses a header, checking magic, version, flags, lengths, that the record count fits the raw length, and the
    /// header CRC. Returns null with a reason when any of them is wrong.
    /// </summary>
    public static BlockHeader? TryRead(ReadOnlySpan<byte> source, out string? problem)
    {
        problem = null;
        if (source.Length < Size)
        {
            problem = "the header is cut short";
            return null;
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(source[MagicOffset..]) != Magic)
        {
            problem = "bad magic";
            return null;
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(source[HeaderCrcOffset..]) != Crc32C.Compute(source[..HeaderCrcOffset]))
        {
            problem = "header checksum mismatch";
            return null;
        }

        var version = BinaryPrimitives.ReadUInt16LittleEndian(source[VersionOffset..]);
        var flags = (BlockFlags)BinaryPrimitives.ReadUInt16LittleEndian(source[FlagsOffset..]);
        var payloadLength = BinaryPrimitives.ReadInt32LittleEndian(source[PayloadLengthOffset..]);
        var rawLength = BinaryPrimitives.ReadInt32LittleEndian(source[RawLengthOffset..]);
        if (version != CurrentVersion || (flags & ~BlockFlags.Known) != 0)
        {
            problem = $"block format version {version} with flags 0x{(ushort)flags:x} is not readable by this build";
            return null;
        }

        if (payloadLength is < 0 or > MaxPayloadLength || rawLength is < 0 or > MaxPayloadLength)
        {
            problem = "a length is out of range";
            return null;
        }

        // Every record takes at least a delete's bytes: a count the raw length cannot hold must not size an array.
        var recordCount = BinaryPrimitives.ReadUInt32LittleEndian(source[RecordCountOffset..]);
        if (recordCount > (uint)rawLength / RecordFormat.DeleteOverhead)
        {
            problem = $"{recordCount} records cannot fit in {rawLength} bytes";
            return null;
        }

        return new BlockHeader(
            flags,
            BinaryPrimitives.ReadUInt32LittleEndian(source[CollectionOffset..]),
            BinaryPrimitives.ReadUInt32LittleEndian(source[ShardOffset..]),
            BinaryPrimitives.ReadUInt64LittleEndian(source[SequenceOffset..]),
            recordCount,
            payloadLength,
            rawLength);
    }

    /// <summary>The bytes the header CRC covers (00-35): what checking a header costs.</summary>
    public const int HeaderCrcLength = HeaderCrcOffset;

    /// <summary>
    /// The block CRC over a block's header only (bytes 00-39), to be extended with <see cref="Crc32C.Append"/> over
    /// the payload a piece at a time, so a block can be verified without holding it whole.
    /// </summary>
    public static uint BlockCrcOfHeader(ReadOnlySpan<byte> header) => Crc32C.Compute(header[..BlockCrcOffset]);

    /// <summary>The block CRC a header records (bytes 40-43).</summary>
    public static uint StoredBlockCrc(ReadOnlySpan<byte> header) => BinaryPrimitives.ReadUInt32LittleEndian(header[BlockCrcOffset..]);

    /// <summary>Whether the block CRC of a whole block (header and payload) matches.</summary>
    public static bool HasValidBlockCrc(ReadOnlySpan<byte> block)
    {
        var expected = BinaryPrimitives.ReadUInt32LittleEndian(block[BlockCrcOffset..]);
        return expected == Crc32C.Append(Crc32C.Compute(block[..BlockCrcOffset]), block[Size..]);
    }
}
