using System.Buffers.Binary;

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

    /// <summary>Writes one record; returns its length.</summary>
    public static int Write(Span<byte> destination, RecordKind kind, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        destination[0] = (byte)kind;
        BinaryPrimitives.WriteInt32LittleEndian(destination[1..], key.Length);
        key.CopyTo(destination[5..]);
        var position = 5 + key.Length;
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
        key = default;
        value = default;
        kind = default;
        var rest = payload[position..];
        if (rest.Length < DeleteOverhead)
        {
            return false;
        }

        kind = (RecordKind)rest[0];
        var keyLength = BinaryPrimitives.ReadInt32LittleEndian(rest[1..]);
        if (kind is not (RecordKind.Put or RecordKind.Delete) || keyLength < 0 || keyLength > rest.Length - DeleteOverhead)
        {
            return false;
        }

        key = rest.Slice(5, keyLength);
        var length = 5 + keyLength;
        if (kind == RecordKind.Put)
        {
            if (rest.Length - length < 4)
            {
                return false;
            }

            var valueLength = BinaryPrimitives.ReadInt32LittleEndian(rest[length..]);
            if (valueLength < 0 || valueLength > rest.Length - length - 4)
            {
                return false;
            }

            value = rest.Slice(length + 4, valueLength);
            length += 4 + valueLength;
        }

        position += length;
        return true;
    }
}
