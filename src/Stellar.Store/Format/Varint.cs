using System.Diagnostics;

namespace Stellar.Store.Format;

/// <summary>
/// Unsigned LEB128 integers: seven bits a byte, least significant first, the high bit set on every byte but the
/// last. Only the shortest encoding of a number is accepted, so a header's length follows from its values and two
/// different byte strings never decode to the same header.
/// </summary>
internal static class Varint
{
    /// <summary>The most bytes a 64-bit number takes.</summary>
    public const int MaxLength64 = 10;

    /// <summary>The most bytes a 32-bit number takes.</summary>
    public const int MaxLength32 = 5;

    /// <summary>The bytes <paramref name="value"/> takes.</summary>
    public static int LengthOf(ulong value)
    {
        var length = 1;
        while (value >= 0x80)
        {
            value >>= 7;
            length++;
        }

        return length;
    }

    /// <summary>Writes <paramref name="value"/> at <paramref name="position"/> and advances it.</summary>
    public static void Write(Span<byte> destination, ref int position, ulong value)
    {
        while (value >= 0x80)
        {
            destination[position++] = (byte)(value | 0x80);
            value >>= 7;
        }

        destination[position++] = (byte)value;
    }

    /// <summary>
    /// Reads a number of at most <paramref name="maxLength"/> bytes at <paramref name="position"/> and advances it.
    /// False when the bytes run out, the number is longer, or it is not in its shortest form.
    /// </summary>
    public static bool TryRead(ReadOnlySpan<byte> source, ref int position, int maxLength, out ulong value)
    {
        Debug.Assert(maxLength is > 0 and <= MaxLength64, "a varint holds at most 64 bits");
        value = 0;
        for (var i = 0; i < maxLength && position + i < source.Length; i++)
        {
            var b = source[position + i];
            if (i == MaxLength64 - 1 && b > 1)
            {
                return false; // bits past the 64th
            }

            value |= (ulong)(b & 0x7f) << (7 * i);
            if (b < 0x80)
            {
                if (b == 0 && i > 0)
                {
                    return false; // a longer form of a shorter number
                }

                position += i + 1;
                return true;
            }
        }

        return false;
    }

    /// <summary><see cref="TryRead(ReadOnlySpan{byte}, ref int, int, out ulong)"/> for a number that must fit an <see cref="int"/>.</summary>
    public static bool TryReadInt(ReadOnlySpan<byte> source, ref int position, out int value)
    {
        var start = position;
        if (TryRead(source, ref position, MaxLength32, out var wide) && wide <= int.MaxValue)
        {
            value = (int)wide;
            return true;
        }

        position = start;
        value = 0;
        return false;
    }
}
