using System.Buffers.Binary;
using System.Security.Cryptography;

namespace Stellar.Store.Format;

/// <summary>
/// The fixed 36-byte header at the start of every shard file written by format 2 and later. All integers
/// little-endian.
/// <code>
/// 00-03 [u32] magic "SSH2"
/// 04-05 [u16] format version: 3 (its blocks have compact headers), or 2 (fixed 44-byte block headers)
/// 06-07 [u16] reserved, zero
/// 08-11 [u32] collection id
/// 12-15 [u32] shard id
/// 16-31 [16]  salt: random, new for every shard file ever created
/// 32-35 [u32] CRC32C over bytes 00-31
/// </code>
/// The salt goes into the shard's encryption subkey, so two shards that share a (collection, shard) id, as the
/// copies of a store directory do once both write again, never share a key, and (shard, sequence) nonces cannot
/// repeat under one. The manifest records each shard's salt too (authenticated in an encrypted store), so a shard
/// file taken from another copy of the store is refused.
/// </summary>
internal readonly record struct ShardHeader(uint CollectionId, uint ShardId, byte[] Salt, ushort Version = ShardHeader.CurrentVersion)
{
    public const int Size = 36;
    public const uint Magic = 0x32485353; // "SSH2" read as little-endian

    /// <summary>The version this build writes: its blocks have the compact header (<see cref="CompactBlockHeader"/>).</summary>
    public const ushort CurrentVersion = 3;

    /// <summary>The oldest version with a header: its blocks have the fixed 44-byte header.</summary>
    public const ushort FirstVersion = 2;
    public const int SaltSize = 16;

    private const int MagicOffset = 0;
    private const int VersionOffset = 4;
    private const int ReservedOffset = 6;
    private const int CollectionOffset = 8;
    private const int ShardOffset = 12;
    private const int SaltOffset = 16;
    private const int CrcOffset = 32;

    /// <summary>Whether the shard's blocks have the compact header of format 3 (else the fixed one).</summary>
    public bool HasCompactBlocks => Version >= 3;

    /// <summary>A header of the current version with a fresh random salt.</summary>
    public static ShardHeader New(uint collectionId, uint shardId) => new(collectionId, shardId, RandomNumberGenerator.GetBytes(SaltSize));

    /// <summary>Writes the whole header into the first <see cref="Size"/> bytes of <paramref name="destination"/>.</summary>
    public void WriteTo(Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(destination[MagicOffset..], Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[VersionOffset..], Version);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[ReservedOffset..], 0);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[CollectionOffset..], CollectionId);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[ShardOffset..], ShardId);
        Salt.AsSpan(0, SaltSize).CopyTo(destination[SaltOffset..]);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[CrcOffset..], Crc32C.Compute(destination[..CrcOffset]));
    }

    /// <summary>The header as a new array.</summary>
    public byte[] ToArray()
    {
        var bytes = new byte[Size];
        WriteTo(bytes);
        return bytes;
    }

    /// <summary>Parses a header, checking magic, checksum, version and reserved bytes; null with a reason when one is wrong.</summary>
    public static ShardHeader? TryRead(ReadOnlySpan<byte> source, out string? problem)
    {
        problem = null;
        if (source.Length < Size)
        {
            problem = "the shard header is cut short";
            return null;
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(source[MagicOffset..]) != Magic)
        {
            problem = "the shard header has a bad magic";
            return null;
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(source[CrcOffset..]) != Crc32C.Compute(source[..CrcOffset]))
        {
            problem = "shard header checksum mismatch";
            return null;
        }

        var version = BinaryPrimitives.ReadUInt16LittleEndian(source[VersionOffset..]);
        if (version is < FirstVersion or > CurrentVersion || BinaryPrimitives.ReadUInt16LittleEndian(source[ReservedOffset..]) != 0)
        {
            problem = $"shard format version {version} is not readable by this build";
            return null;
        }

        return new ShardHeader(
            BinaryPrimitives.ReadUInt32LittleEndian(source[CollectionOffset..]),
            BinaryPrimitives.ReadUInt32LittleEndian(source[ShardOffset..]),
            source.Slice(SaltOffset, SaltSize).ToArray(),
            version);
    }
}
