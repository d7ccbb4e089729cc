using System.Buffers.Binary;
using System.Numerics;

namespace Stellar.Store.Format;

/// <summary>
/// CRC-32C (Castagnoli) through <see cref="BitOperations.Crc32C(uint, ulong)"/>, which the JIT turns into the
/// SSE4.2 / ARMv8 CRC instruction where the CPU has one.
/// </summary>
internal static class Crc32C
{
    /// <summary>The CRC of <paramref name="data"/>.</summary>
    public static uint Compute(ReadOnlySpan<byte> data) => Append(0, data);

    /// <summary>Extends <paramref name="crc"/> (from an earlier call) over <paramref name="data"/>.</summary>
    public static uint Append(uint crc, ReadOnlySpan<byte> data)
    {
        var state = ~crc;
        while (data.Length >= 8)
        {
            state = BitOperations.Crc32C(state, BinaryPrimitives.ReadUInt64LittleEndian(data));
            data = data[8..];
        }

        foreach (var b in data)
        {
            state = BitOperations.Crc32C(state, b);
        }

        return ~state;
    }
}
