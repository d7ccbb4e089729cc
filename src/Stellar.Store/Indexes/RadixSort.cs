using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// A radix sort of items by the unsigned 64-bit numbers of their keys (<see cref="RadixKey{T}"/>), a byte a pass,
/// skipping each byte every number shares: the items are first split in place by the highest byte that differs, then
/// each part is sorted by the bytes below it, least significant first, through a spare array the size of the largest
/// part.
/// </summary>
/// <remarks>
/// <para>Why: sorting a build's entries by comparisons took most of an index's build, and a pass of a radix sort reads
/// the entries once and writes each once, with no comparison to call: on a million records with integer keys below a
/// million, the three passes took 21–34 ms where the sort by comparisons had taken 100–250 ms.</para>
/// <para>Why split in place first: sorting least significant byte first needs a second array as large as the items, 16
/// MB for a million entries of integer keys, allocated on the large object heap while the records just loaded are still
/// new to the collector. With the index builds of an open, those arrays were what made the collector start a full
/// collection in the middle of the builds, which then ran beside it on the same cores. A million scores below a million
/// split by their third byte into 16 parts, and sorting a part needs a spare of 1 MB, which also stays in the cache
/// while the part is sorted.</para>
/// <para>Items with equal numbers end in no particular order: the caller orders them by what else it compares.</para>
/// <para>Thread safety: stateless; the caller owns the items.</para>
/// </remarks>
internal static class RadixSort
{
    private const int Digits = sizeof(ulong);
    private const int Buckets = 256;

    /// <summary>Parts this small are sorted by insertion: counting eight bytes of 256 values each costs more.</summary>
    private const int InsertionBelow = 48;

    /// <summary>Orders <paramref name="items"/> in place by the numbers <paramref name="numbers"/> gives them.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void Sort<T, TNumbers>(Span<T> items, TNumbers numbers)
        where TNumbers : struct, IRadixNumbers<T>
    {
        var counts = new int[Digits * Buckets];
        Count(items, numbers, counts, Digits);
        var top = Digits - 1;
        while (top >= 0 && counts.AsSpan(top * Buckets, Buckets).Contains(items.Length))
        {
            top--;
        }

        if (top < 0)
        {
            // No byte differs (or there are fewer than two items): nothing moves.
            return;
        }

        Span<int> ends = stackalloc int[Buckets];
        Span<int> next = stackalloc int[Buckets];
        var largest = 0;
        var end = 0;
        for (var bucket = 0; bucket < Buckets; bucket++)
        {
            var size = counts[(top * Buckets) + bucket];
            next[bucket] = end;
            end += size;
            ends[bucket] = end;
            largest = Math.Max(largest, size);
        }

        // Each item goes straight to the next free place of its part, and the item it displaces goes on to its own.
        var shift = top * 8;
        for (var bucket = 0; bucket < Buckets; bucket++)
        {
            while (next[bucket] < ends[bucket])
            {
                var item = items[next[bucket]];
                var home = DigitOf(numbers.Of(in item), shift);
                while (home != bucket)
                {
                    (item, items[next[home]]) = (items[next[home]], item);
                    next[home]++;
                    home = DigitOf(numbers.Of(in item), shift);
                }

                items[next[bucket]++] = item;
            }
        }

        if (top == 0 || largest < 2)
        {
            return;
        }

        var spare = new T[largest];
        var start = 0;
        for (var bucket = 0; bucket < Buckets; bucket++)
        {
            var part = items[start..ends[bucket]];
            start = ends[bucket];
            if (part.Length < InsertionBelow)
            {
                Insert(part, numbers);
            }
            else
            {
                SortLow(part, spare.AsSpan(0, part.Length), top, numbers, counts);
            }
        }
    }

    /// <summary>
    /// Orders <paramref name="items"/>, whose bytes from <paramref name="below"/> up are all equal, by their lower bytes,
    /// least significant first: stable passes back and forth through <paramref name="spare"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void SortLow<T, TNumbers>(Span<T> items, Span<T> spare, int below, TNumbers numbers, int[] counts)
        where TNumbers : struct, IRadixNumbers<T>
    {
        Array.Clear(counts, 0, below * Buckets);
        Count(items, numbers, counts, below);
        var from = items;
        var to = spare;
        for (var digit = 0; digit < below; digit++)
        {
            var starts = counts.AsSpan(digit * Buckets, Buckets);
            if (starts.Contains(items.Length))
            {
                continue;
            }

            var next = 0;
            for (var bucket = 0; bucket < Buckets; bucket++)
            {
                (starts[bucket], next) = (next, next + starts[bucket]);
            }

            var shift = digit * 8;
            for (var i = 0; i < from.Length; i++)
            {
                to[starts[DigitOf(numbers.Of(in from[i]), shift)]++] = from[i];
            }

            var passed = to;
            to = from;
            from = passed;
        }

        if (from != items)
        {
            from.CopyTo(items);
        }
    }

    /// <summary>Counts, for each of the lowest <paramref name="digits"/> bytes, how many of <paramref name="items"/> have each value of it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Count<T, TNumbers>(ReadOnlySpan<T> items, TNumbers numbers, int[] counts, int digits)
        where TNumbers : struct, IRadixNumbers<T>
    {
        for (var i = 0; i < items.Length; i++)
        {
            var number = numbers.Of(in items[i]);
            for (var digit = 0; digit < digits; digit++)
            {
                counts[(digit * Buckets) + DigitOf(number, digit * 8)]++;
            }
        }
    }

    /// <summary>Orders a few <paramref name="items"/> by their numbers, by insertion.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Insert<T, TNumbers>(Span<T> items, TNumbers numbers)
        where TNumbers : struct, IRadixNumbers<T>
    {
        for (var i = 1; i < items.Length; i++)
        {
            var moving = items[i];
            var number = numbers.Of(in moving);
            var at = i - 1;
            while (at >= 0 && numbers.Of(in items[at]) > number)
            {
                items[at + 1] = items[at];
                at--;
            }

            items[at + 1] = moving;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int DigitOf(ulong number, int shift) => (int)((number >> shift) & 0xFF);
}
