using System.Buffers.Binary;
using System.Diagnostics;

namespace Stellar.Store.Format;

/// <summary>
/// The records inside a block's raw payload, one after the other. The first byte of a record says its layout. This
/// build writes the compact one (format 3), with an expiry prefix in front of a put that expires; it reads the fixed
/// one of formats 1 and 2 as well. A block that holds an expiring put is flagged <see cref="BlockFlags.Expiring"/>, so
/// that a build which would keep the record forever refuses the block instead.
/// <code>
/// compact (first byte 0x80 and up):
/// 00    [u8]     tag: bit 7 set; bit 6 set for a delete; bits 0-5 the key length K, or 63 when K is 63 or more
///       [varint] K, only when bits 0-5 are 63
///       [K]      key, MessagePack (K is at least 1)
/// put only:
///       [varint] value length V
///       [V]      value, MessagePack
/// expiring put (first byte 3):
/// 00    [u8]     3
/// 01-08 [i64]    when the record expires: UTC ticks, little-endian, greater than 0
/// 09..  a compact put, as above
/// fixed (first byte 1 put, 2 delete; integers little-endian):
/// 00    [u8]  kind (RecordKind)
/// 01-04 [u32] key length K
/// 05..  [K]   key, MessagePack
/// put only:
///       [u32] value length V
///       [V]   value, MessagePack
/// </code>
/// </summary>
internal static class RecordFormat
{
    /// <summary>The most bytes the framing adds to a put's key and value (a tag and two five-byte varints).</summary>
    public const int PutOverhead = 1 + Varint.MaxLength32 + Varint.MaxLength32;

    /// <summary>The bytes an expiry time adds in front of a put: its marker and its ticks.</summary>
    public const int ExpiryOverhead = 1 + sizeof(long);

    /// <summary>The fewest bytes a record of the fixed layout takes (a delete with an empty key).</summary>
    public const int DeleteOverhead = 5;

    /// <summary>The fewest bytes a compact record takes (a delete's tag and a one-byte key).</summary>
    public const int MinRecordLength = 2;

    private const byte ExpiryMarker = 3;
    private const byte CompactTag = 0x80;
    private const byte DeleteBit = 0x40;
    private const int InlineKeyLimit = 0x3f;

    /// <summary>Where the key length sits in a fixed record.</summary>
    private const int KeyLengthOffset = 1;

    /// <summary>Where the key starts in a fixed record.</summary>
    private const int KeyOffset = 5;

    /// <summary>
    /// The length of the record <see cref="Write"/> makes of a key and value of these lengths, expiring when
    /// <paramref name="expiresAt"/> is not 0.
    /// </summary>
    public static int Length(RecordKind kind, int keyLength, int valueLength, long expiresAt = 0) =>
        (expiresAt != 0 ? ExpiryOverhead : 0)
        + 1 + (keyLength >= InlineKeyLimit ? Varint.LengthOf((uint)keyLength) : 0) + keyLength
        + (kind == RecordKind.Put ? Varint.LengthOf((uint)valueLength) + valueLength : 0);

    /// <summary>
    /// Writes one compact record, prefixed by its expiry time when <paramref name="expiresAt"/> (UTC ticks) is not 0,
    /// which only a put has; returns its length.
    /// </summary>
    public static int Write(Span<byte> destination, RecordKind kind, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long expiresAt = 0)
    {
        Debug.Assert(key.Length > 0, "a MessagePack key is never empty");
        Debug.Assert(expiresAt >= 0 && (expiresAt == 0 || kind == RecordKind.Put), "only a put expires, at a time after 0");
        var position = 0;
        if (expiresAt != 0)
        {
            destination[0] = ExpiryMarker;
            BinaryPrimitives.WriteInt64LittleEndian(destination[1..], expiresAt);
            position = ExpiryOverhead;
        }

        var tag = (byte)(CompactTag | (kind == RecordKind.Delete ? DeleteBit : 0) | Math.Min(key.Length, InlineKeyLimit));
        destination[position++] = tag;
        if (key.Length >= InlineKeyLimit)
        {
            Varint.Write(destination, ref position, (uint)key.Length);
        }

        key.CopyTo(destination[position..]);
        position += key.Length;
        if (kind == RecordKind.Put)
        {
            Varint.Write(destination, ref position, (uint)value.Length);
            value.CopyTo(destination[position..]);
            position += value.Length;
        }

        Debug.Assert(position == Length(kind, key.Length, value.Length, expiresAt), "Length names the layout written here");
        return position;
    }

    /// <summary>
    /// Reads the record at <paramref name="position"/> and advances it. Returns false when the bytes do not form
    /// a record (the caller reports the block as corrupt).
    /// </summary>
    public static bool TryRead(ReadOnlySpan<byte> payload, ref int position, out RecordKind kind, out ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        if (!TryRead(payload, ref position, out RecordExtent record))
        {
            kind = default;
            key = default;
            value = default;
            return false;
        }

        kind = record.Kind;
        key = payload.Slice(record.KeyOffset, record.KeyLength);
        value = payload.Slice(record.ValueOffset, record.ValueLength);
        return true;
    }

    /// <summary>
    /// Reads the record at <paramref name="position"/> and advances it, giving where its key and value lie in
    /// <paramref name="payload"/> (a delete's value is empty, at the record's end). Returns false when the bytes do
    /// not form a record (the caller reports the block as corrupt).
    /// </summary>
    public static bool TryRead(ReadOnlySpan<byte> payload, ref int position, out RecordExtent record)
    {
        record = default;
        if (position >= payload.Length)
        {
            return false;
        }

        var found = payload[position] >= CompactTag ? TryReadCompact(payload, position, out record)
            : payload[position] == ExpiryMarker ? TryReadExpiring(payload, position, out record)
            : TryReadFixed(payload, position, out record);
        if (found)
        {
            position += record.Length;
        }

        return found;
    }

    private static bool TryReadExpiring(ReadOnlySpan<byte> payload, int start, out RecordExtent record)
    {
        record = default;
        if (payload.Length - start <= ExpiryOverhead || payload[start + ExpiryOverhead] < CompactTag)
        {
            return false;
        }

        var expiresAt = BinaryPrimitives.ReadInt64LittleEndian(payload[(start + 1)..]);
        if (expiresAt <= 0 || !TryReadCompact(payload, start + ExpiryOverhead, out var put) || put.Kind != RecordKind.Put)
        {
            return false; // only a put expires, and only at a time after 0
        }

        record = put with { Start = start, Length = put.Length + ExpiryOverhead, ExpiresAt = expiresAt };
        return true;
    }

    private static bool TryReadCompact(ReadOnlySpan<byte> payload, int start, out RecordExtent record)
    {
        record = default;
        var tag = payload[start];
        var kind = (tag & DeleteBit) != 0 ? RecordKind.Delete : RecordKind.Put;
        var at = start + 1;
        var keyLength = tag & InlineKeyLimit;
        if (keyLength == InlineKeyLimit && (!Varint.TryReadInt(payload, ref at, out keyLength) || keyLength < InlineKeyLimit))
        {
            return false; // a length that fits the tag must be in the tag: one record, one encoding
        }

        if (keyLength == 0 || keyLength > payload.Length - at)
        {
            return false;
        }

        var keyOffset = at;
        at += keyLength;
        var valueLength = 0;
        if (kind == RecordKind.Put && (!Varint.TryReadInt(payload, ref at, out valueLength) || valueLength > payload.Length - at))
        {
            return false;
        }

        record = new RecordExtent(kind, start, at + valueLength - start, keyOffset, keyLength, at, valueLength);
        Debug.Assert(record.Length == Length(kind, keyLength, valueLength), "Length names the layout read here");
        return true;
    }

    private static bool TryReadFixed(ReadOnlySpan<byte> payload, int start, out RecordExtent record)
    {
        record = default;
        var rest = payload[start..];
        if (rest.Length < DeleteOverhead)
        {
            return false;
        }

        var kind = (RecordKind)rest[0];
        var keyLength = BinaryPrimitives.ReadInt32LittleEndian(rest[KeyLengthOffset..]);
        if (kind is not (RecordKind.Put or RecordKind.Delete) || keyLength < 0 || keyLength > rest.Length - DeleteOverhead)
        {
            return false;
        }

        var length = KeyOffset + keyLength;
        var valueLength = 0;
        if (kind == RecordKind.Put)
        {
            if (rest.Length - length < 4)
            {
                return false;
            }

            valueLength = BinaryPrimitives.ReadInt32LittleEndian(rest[length..]);
            if (valueLength < 0 || valueLength > rest.Length - length - 4)
            {
                return false;
            }

            length += 4;
        }

        record = new RecordExtent(kind, start, length + valueLength, start + KeyOffset, keyLength, start + length, valueLength);
        return true;
    }
}
