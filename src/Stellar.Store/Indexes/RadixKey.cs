using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// The index keys a build sorts by their bits instead of by comparisons (<see cref="RadixSort"/>): each maps to an
/// unsigned number that orders as <see cref="Comparer{T}.Default"/> orders the keys, equal keys to equal numbers.
/// </summary>
/// <remarks>
/// <para>The types: the integers, <see cref="bool"/>, <see cref="char"/>, <see cref="DateTime"/> (by its ticks, as it
/// compares, whatever its kind), <see cref="DateTimeOffset"/> (by its UTC ticks), <see cref="TimeSpan"/>, and
/// <see cref="double"/> and <see cref="float"/>, which compare NaN below every number and equal to itself, and -0 equal
/// to 0. Any other type is sorted by comparisons.</para>
/// <para>Thread safety: stateless.</para>
/// </remarks>
internal static class RadixKey<T>
{
    /// <summary>Whether <typeparamref name="T"/> maps to numbers.</summary>
    public static bool Supported { get; } =
        typeof(T) == typeof(int) || typeof(T) == typeof(long) || typeof(T) == typeof(short) || typeof(T) == typeof(sbyte)
        || typeof(T) == typeof(uint) || typeof(T) == typeof(ulong) || typeof(T) == typeof(ushort) || typeof(T) == typeof(byte)
        || typeof(T) == typeof(bool) || typeof(T) == typeof(char) || typeof(T) == typeof(DateTime) || typeof(T) == typeof(DateTimeOffset)
        || typeof(T) == typeof(TimeSpan) || typeof(T) == typeof(double) || typeof(T) == typeof(float);

    /// <summary>The number of <paramref name="key"/>; only for a <see cref="Supported"/> type.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong Of(T key)
    {
        // Each test is a constant for the type the JIT compiles this for: all but one branch fall away.
        if (typeof(T) == typeof(int))
        {
            return (uint)(Unsafe.As<T, int>(ref key) ^ int.MinValue);
        }

        if (typeof(T) == typeof(long))
        {
            return (ulong)(Unsafe.As<T, long>(ref key) ^ long.MinValue);
        }

        if (typeof(T) == typeof(short))
        {
            return (ushort)(Unsafe.As<T, short>(ref key) ^ short.MinValue);
        }

        if (typeof(T) == typeof(sbyte))
        {
            return (byte)(Unsafe.As<T, sbyte>(ref key) ^ sbyte.MinValue);
        }

        if (typeof(T) == typeof(uint))
        {
            return Unsafe.As<T, uint>(ref key);
        }

        if (typeof(T) == typeof(ulong))
        {
            return Unsafe.As<T, ulong>(ref key);
        }

        if (typeof(T) == typeof(ushort))
        {
            return Unsafe.As<T, ushort>(ref key);
        }

        if (typeof(T) == typeof(byte))
        {
            return Unsafe.As<T, byte>(ref key);
        }

        if (typeof(T) == typeof(bool))
        {
            return Unsafe.As<T, bool>(ref key) ? 1UL : 0UL;
        }

        if (typeof(T) == typeof(char))
        {
            return Unsafe.As<T, char>(ref key);
        }

        if (typeof(T) == typeof(DateTime))
        {
            return (ulong)Unsafe.As<T, DateTime>(ref key).Ticks;
        }

        if (typeof(T) == typeof(DateTimeOffset))
        {
            return (ulong)Unsafe.As<T, DateTimeOffset>(ref key).UtcTicks;
        }

        if (typeof(T) == typeof(TimeSpan))
        {
            return (ulong)(Unsafe.As<T, TimeSpan>(ref key).Ticks ^ long.MinValue);
        }

        if (typeof(T) == typeof(double))
        {
            return OfDouble(Unsafe.As<T, double>(ref key));
        }

        if (typeof(T) == typeof(float))
        {
            return OfDouble(Unsafe.As<T, float>(ref key));
        }

        throw new NotSupportedException($"Index keys of type {typeof(T)} are sorted by comparisons.");
    }

    /// <summary>
    /// A double's number: NaN lowest (zero), then the numbers in order, -0 as 0; a negative number's bits all flip (so
    /// that a larger magnitude is lower), a positive number's sign bit sets (so that it is above every negative one).
    /// A float widens to a double exactly, so it takes the same path.
    /// </summary>
    private static ulong OfDouble(double key)
    {
        if (double.IsNaN(key))
        {
            return 0;
        }

        var bits = BitConverter.DoubleToUInt64Bits(key == 0 ? 0d : key);
        return (bits & (1UL << 63)) != 0 ? ~bits : bits | (1UL << 63);
    }
}
