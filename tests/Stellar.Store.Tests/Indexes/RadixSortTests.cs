using Stellar.Store.Indexes;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// The numbers a build sorts index keys by, against the types' own comparison (<see cref="Comparer{T}.Default"/>), and
/// the radix sort, against LINQ's sort.
/// </summary>
public sealed class RadixSortTests
{
    [Fact]
    public void Of_EveryNumberedType_OrdersAsTheTypesOwnComparison()
    {
        var random = new Random(5);
        Check(Edges(int.MinValue, int.MaxValue, 0, -1, 1).Concat(Many(random, r => r.Next(int.MinValue, int.MaxValue))));
        Check(Edges(long.MinValue, long.MaxValue, 0L, -1L, 1L).Concat(Many(random, r => r.NextInt64(long.MinValue, long.MaxValue))));
        Check(Edges(short.MinValue, short.MaxValue, (short)0, (short)-1).Concat(Many(random, r => (short)r.Next(short.MinValue, short.MaxValue))));
        Check(Edges(sbyte.MinValue, sbyte.MaxValue, (sbyte)0, (sbyte)-1).Concat(Many(random, r => (sbyte)r.Next(sbyte.MinValue, sbyte.MaxValue))));
        Check(Edges(uint.MinValue, uint.MaxValue, 1u << 31).Concat(Many(random, r => (uint)r.NextInt64(0, uint.MaxValue))));
        Check(Edges(ulong.MinValue, ulong.MaxValue, 1UL << 63).Concat(Many(random, r => (ulong)r.NextInt64() * 2)));
        Check(Edges(ushort.MinValue, ushort.MaxValue).Concat(Many(random, r => (ushort)r.Next(ushort.MaxValue))));
        Check(Edges(byte.MinValue, byte.MaxValue).Concat(Many(random, r => (byte)r.Next(256))));
        Check(new[] { false, true, true, false });
        Check(Edges(char.MinValue, char.MaxValue, 'a').Concat(Many(random, r => (char)r.Next(char.MaxValue))));
        Check(Edges(TimeSpan.MinValue, TimeSpan.MaxValue, TimeSpan.Zero, TimeSpan.FromTicks(-1)).Concat(Many(random, r => TimeSpan.FromTicks(r.NextInt64(long.MinValue, long.MaxValue)))));

        // Kinds do not count: DateTime compares its ticks alone.
        Check(Edges(DateTime.MinValue, DateTime.MaxValue, new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc), new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Local), new DateTime(2026, 1, 1))
            .Concat(Many(random, r => new DateTime(r.NextInt64(DateTime.MinValue.Ticks, DateTime.MaxValue.Ticks), (DateTimeKind)r.Next(3)))));

        // Offsets do not count: DateTimeOffset compares the instant.
        Check(Edges(DateTimeOffset.MinValue, DateTimeOffset.MaxValue, new DateTimeOffset(2026, 1, 1, 2, 0, 0, TimeSpan.FromHours(2)), new DateTimeOffset(2026, 1, 1, 0, 0, 0, TimeSpan.Zero))
            .Concat(Many(random, r => new DateTimeOffset(r.NextInt64(DateTime.MinValue.Ticks + TimeSpan.TicksPerDay, DateTime.MaxValue.Ticks - TimeSpan.TicksPerDay), TimeSpan.FromMinutes(r.Next(-600, 600))))));

        // NaN below every number and equal to every NaN; -0 equal to 0.
        Check(Edges(double.NaN, -double.NaN, BitConverter.UInt64BitsToDouble(0x7FF0_0000_0000_0001), double.NegativeInfinity, double.PositiveInfinity, double.MinValue, double.MaxValue, -0d, 0d, double.Epsilon, -double.Epsilon)
            .Concat(Many(random, r => (r.NextDouble() - 0.5) * Math.Pow(10, r.Next(-300, 300)))));
        Check(Edges(float.NaN, -float.NaN, float.NegativeInfinity, float.PositiveInfinity, float.MinValue, float.MaxValue, -0f, 0f, float.Epsilon, -float.Epsilon)
            .Concat(Many(random, r => (float)((r.NextDouble() - 0.5) * Math.Pow(10, r.Next(-40, 38))))));
    }

    [Fact]
    public void Supported_LeavesOutTypesThatDoNotMapToOneNumber()
    {
        Assert.False(RadixKey<string>.Supported);
        Assert.False(RadixKey<Guid>.Supported);
        Assert.False(RadixKey<decimal>.Supported);
        Assert.False(RadixKey<(int, int)>.Supported);
        Assert.False(RadixKey<int?>.Supported);
        Assert.False(RadixKey<DayOfWeek>.Supported);
    }

    [Theory]
    [InlineData(0, 0UL)]
    [InlineData(1, 0UL)]
    [InlineData(2, 2UL)]
    [InlineData(47, 1_000_000UL)]
    [InlineData(48, 1_000_000UL)]
    [InlineData(10_000, 0UL)]
    [InlineData(10_000, 1UL)]
    [InlineData(10_000, 50UL)]
    [InlineData(10_000, 256UL)]
    [InlineData(10_000, 1_000_000UL)]
    [InlineData(100_000, 1_000_000UL)]
    [InlineData(10_000, ulong.MaxValue)]
    public void Sort_OrdersByTheNumbersAndKeepsEveryItem(int count, ulong range)
    {
        var random = new Random(count ^ (int)range);
        var keys = Enumerable.Range(0, count).Select(_ => range == ulong.MaxValue ? (ulong)random.NextInt64() ^ ((ulong)random.Next(2) << 63) : (ulong)random.NextInt64(0, (long)Math.Max(range, 1))).ToArray();

        // Keys that differ only in their highest byte too, so that a pass skipped by mistake shows.
        if (count > 0 && range == 50UL)
        {
            keys[0] = 7UL << 56;
        }

        CheckSort(keys);
    }

    [Fact]
    public void Sort_ManyItemsInOnePartAndFewInOthers_OrdersThemAll()
    {
        // One part (by the highest byte that differs) holds nearly every item, so its spare is nearly as large as the
        // items; the others hold one or two, sorted by insertion.
        var random = new Random(3);
        var keys = Enumerable.Range(0, 20_000).Select(_ => (ulong)random.Next(0, 1 << 16))
            .Concat([1UL << 40, (1UL << 40) + 5, 3UL << 40, (3UL << 40) - 1, 255UL << 40])
            .OrderBy(_ => random.Next())
            .ToArray();
        CheckSort(keys);
    }

    [Fact]
    public void Sort_ScoresOfManyRecords_NeedsASpareOfOnePartNotOfAllTheItems()
    {
        // A million scores below a million split by their third byte into 16 parts: the sort's spare is the size of
        // one part. A sort that took a spare as large as the items would allocate more than the items' size.
        var random = new Random(9);
        var items = Enumerable.Range(0, 160_000).Select(item => (Key: (ulong)random.Next(0, 1_000_000), Item: item)).ToArray();
        var itemsBytes = items.Length * 16L;
        RadixSort.Sort(items.AsSpan(0, 64), default(PairNumbers));
        var before = GC.GetAllocatedBytesForCurrentThread();
        RadixSort.Sort(items.AsSpan(), default(PairNumbers));
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.True(allocated < itemsBytes / 4, $"the sort allocated {allocated} bytes for {itemsBytes} bytes of items");
        Assert.True(items.Select(p => p.Key).SequenceEqual(items.Select(p => p.Key).Order()), "the items are in order");
    }

    /// <summary>The sort of pairs of <paramref name="keys"/> and their places, against LINQ's: the same keys in order, and every pair once.</summary>
    private static void CheckSort(ulong[] keys)
    {
        var items = keys.Select((key, item) => (Key: key, Item: item)).ToArray();
        RadixSort.Sort(items.AsSpan(), default(PairNumbers));
        Assert.Equal(keys.Order(), items.Select(p => p.Key));
        Assert.Equal(Enumerable.Range(0, keys.Length), items.Select(p => p.Item).Order());
        Assert.All(items, p => Assert.Equal(keys[p.Item], p.Key));
    }

    /// <summary>A pair's number is its key.</summary>
    private readonly struct PairNumbers : IRadixNumbers<(ulong Key, int Item)>
    {
        public ulong Of(in (ulong Key, int Item) item) => item.Key;
    }

    private static T[] Edges<T>(params T[] values) => values;

    private static IEnumerable<T> Many<T>(Random random, Func<Random, T> next) => Enumerable.Range(0, 300).Select(_ => next(random));

    /// <summary>Every pair of <paramref name="values"/> compares as their numbers do.</summary>
    private static void Check<T>(IEnumerable<T> values)
    {
        Assert.True(RadixKey<T>.Supported);
        var all = values.ToArray();
        foreach (var a in all)
        {
            foreach (var b in all)
            {
                var expected = Math.Sign(Comparer<T>.Default.Compare(a, b));
                var actual = Math.Sign(RadixKey<T>.Of(a).CompareTo(RadixKey<T>.Of(b)));
                Assert.True(expected == actual, $"{typeof(T).Name} {a} against {b}: compares {expected}, numbers {actual}");
            }
        }
    }
}
