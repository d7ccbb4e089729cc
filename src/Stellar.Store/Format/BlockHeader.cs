using System.Buffers.Binary;

namespace Stellar.Store.Format;

/// <summary>
/// The header in front of every block, in one of two layouts: the compact one of format 3
/// (<see cref="CompactBlockHeader"/>, <see cref="Compact"/> set), which this build writes, or the fixed 44-byte one
/// of formats 1 and 2 below, which it still reads. All integers little-endian.
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
    int RawLength,
    bool Compact = false)
{
    /// <summary>The length of the fixed header of formats 1 and 2.</summary>
    public const int Size = 44;

    /// <summary>The longest header of either layout: what a reader reads before it knows which one it has.</summary>
    public const int MaxSize = CompactBlockHeader.MaxSize;

    /// <summary>The shortest header of either layout.</summary>
    public const int MinSize = CompactBlockHeader.MinSize;
    public const uint Magic = 0x31425353; // "SSB1" read as little-endian
    public const ushort CurrentVersion = 1;

    /// <summary>The bytes of a fixed header bound into encryption as associated data: everything but the block CRC.</summary>
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

    /// <summary>The header's length on disk: where the payload starts.</summary>
    public int HeaderLength => Compact ? CompactBlockHeader.LengthOf(this) : Size;

    /// <summary>The header bytes bound into encryption as associated data: every byte before the block CRC.</summary>
    public int AadLength => HeaderLength - sizeof(uint);

    /// <summary>The whole block's length on disk.</summary>
    public int BlockLength => HeaderLength + PayloadLength;

    /// <summary>Whether <paramref name="source"/> starts with the magic number of either layout.</summary>
    public static bool HasMagic(ReadOnlySpan<byte> source) =>
        source.Length >= sizeof(uint) && BinaryPrimitives.ReadUInt32LittleEndian(source) is Magic or CompactBlockHeader.Magic;

    /// <summary>Writes the header but its block CRC (which needs the payload): the first <see cref="AadLength"/> bytes.</summary>
    public void WriteTo(Span<byte> destination)
    {
        if (Compact)
        {
            CompactBlockHeader.Write(this, destination);
            return;
        }

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
        var headerLength = HeaderLengthAt(block);
        var crc = Crc32C.Append(Crc32C.Compute(block[..(headerLength - sizeof(uint))]), block[headerLength..]);
        BinaryPrimitives.WriteUInt32LittleEndian(block[(headerLength - sizeof(uint))..], crc);
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
            if (source.Length < MinSize || BinaryPrimitives.ReadUInt32LittleEndian(source) != CompactBlockHeader.Magic)
            {
                problem = "the header is cut short";
                return null;
            }
        }

        var magic = BinaryPrimitives.ReadUInt32LittleEndian(source[MagicOffset..]);
        if (magic == CompactBlockHeader.Magic)
        {
            return CompactBlockHeader.TryRead(source, out problem) is { } compact ? Checked(compact, out problem) : null;
        }

        if (magic != Magic)
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
        if (version != CurrentVersion)
        {
            problem = $"block format version {version} is not readable by this build";
            return null;
        }

        return Checked(
            new BlockHeader(
                (BlockFlags)BinaryPrimitives.ReadUInt16LittleEndian(source[FlagsOffset..]),
                BinaryPrimitives.ReadUInt32LittleEndian(source[CollectionOffset..]),
                BinaryPrimitives.ReadUInt32LittleEndian(source[ShardOffset..]),
                BinaryPrimitives.ReadUInt64LittleEndian(source[SequenceOffset..]),
                BinaryPrimitives.ReadUInt32LittleEndian(source[RecordCountOffset..]),
                BinaryPrimitives.ReadInt32LittleEndian(source[PayloadLengthOffset..]),
                BinaryPrimitives.ReadInt32LittleEndian(source[RawLengthOffset..])),
            out problem);
    }

    /// <summary>The checks both layouts share: known flags, lengths in range, a record count the raw length can hold.</summary>
    private static BlockHeader? Checked(BlockHeader header, out string? problem)
    {
        problem = null;
        if ((header.Flags & ~BlockFlags.Known) != 0)
        {
            problem = $"block flags 0x{(ushort)header.Flags:x} are not readable by this build";
            return null;
        }

        if (header.PayloadLength is < 0 or > MaxPayloadLength || header.RawLength is < 0 or > MaxPayloadLength)
        {
            problem = "a length is out of range";
            return null;
        }

        // Every record takes at least its layout's fewest bytes: a count the raw length cannot hold must not size an array.
        var fewest = header.Compact ? RecordFormat.MinRecordLength : RecordFormat.DeleteOverhead;
        if (header.RecordCount > (uint)header.RawLength / fewest)
        {
            problem = $"{header.RecordCount} records cannot fit in {header.RawLength} bytes";
            return null;
        }

        return header;
    }

    /// <summary>
    /// The most bytes a header check covers (00-35 of a fixed header, up to 40 of a compact one): what checking a
    /// header costs at most.
    /// </summary>
    public const int HeaderCrcLength = MaxSize - sizeof(ushort) - sizeof(uint);

    /// <summary>
    /// The block CRC over a parsed block's header only (every byte before the block CRC), to be extended with
    /// <see cref="Crc32C.Append"/> over the payload a piece at a time, so a block can be verified without holding it whole.
    /// </summary>
    public static uint BlockCrcOfHeader(ReadOnlySpan<byte> header) => Crc32C.Compute(header[..(HeaderLengthAt(header) - sizeof(uint))]);

    /// <summary>The block CRC a parsed header records (its last four bytes).</summary>
    public static uint StoredBlockCrc(ReadOnlySpan<byte> header) => BinaryPrimitives.ReadUInt32LittleEndian(header[(HeaderLengthAt(header) - sizeof(uint))..]);

    /// <summary>Whether the block CRC of a whole block (header and payload), whose header parsed, matches.</summary>
    public static bool HasValidBlockCrc(ReadOnlySpan<byte> block)
    {
        var headerLength = HeaderLengthAt(block);
        var expected = BinaryPrimitives.ReadUInt32LittleEndian(block[(headerLength - sizeof(uint))..]);
        return expected == Crc32C.Append(Crc32C.Compute(block[..(headerLength - sizeof(uint))]), block[headerLength..]);
    }

    /// <summary>The length of the header at the start of <paramref name="block"/>, whose layout its magic tells.</summary>
    private static int HeaderLengthAt(ReadOnlySpan<byte> block) =>
        BinaryPrimitives.ReadUInt32LittleEndian(block) == CompactBlockHeader.Magic ? CompactBlockHeader.LengthAt(block) : Size;
}
