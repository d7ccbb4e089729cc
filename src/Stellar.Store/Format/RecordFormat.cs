using System.Buffers.Binary;
using System.Diagnostics;

namespace Stellar.Store.Format;

/// <summary>
/// The records inside a block's raw payload, one after the other. All integers little-endian.
/// <code>
/// 00    [u8]  kind (RecordKind)
/// 01-04 [u32] key length K
/// 05..  [K]   key, MessagePack
/// Put only:
///       [u32] value length V
///       [V]   value, MessagePack
/// </code>
/// </summary>
internal static class RecordFormat
{
    public const int PutOverhead = 9;
    public const int DeleteOverhead = 5;

    /// <summary>Where the key length sits in a record.</summary>
    private const int KeyLengthOffset = 1;

    /// <summary>Where the key starts in a record.</summary>
    private const int KeyOffset = 5;

    /// <summary>Writes one record; returns its length.</summary>
    public static int Write(Span<byte> destination, RecordKind kind, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        destination[0] = (byte)kind;
        BinaryPrimitives.WriteInt32LittleEndian(destination[KeyLengthOffset..], key.Length);
        key.CopyTo(destination[KeyOffset..]);
        var position = KeyOffset + key.Length;
        if (kind == RecordKind.Put)
        {
            BinaryPrimitives.WriteInt32LittleEndian(destination[position..], value.Length);
            value.CopyTo(destination[(position + 4)..]);
            position += 4 + value.Length;
        }

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
        var rest = payload[position..];
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

        record = new RecordExtent(kind, position, length + valueLength, position + KeyOffset, keyLength, position + length, valueLength);
        Debug.Assert(kind == RecordKind.Put ? record.Length == PutOverhead + keyLength + valueLength : record.Length == DeleteOverhead + keyLength, "the overheads name the layout above");
        position += record.Length;
        return true;
    }
}
