namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// An index declared on records already stored is built by a sort: by the bits of a number key (a radix sort, then the
/// records that share a key by primary key), or by comparisons. Its answers are checked against LINQ's order of the
/// same records by the key type's own comparison, for keys that tie in groups small and large, and for the values a
/// mapping to numbers gets wrong first (NaN, -0, infinities, extreme values, dates of every kind).
/// </summary>
public sealed class IndexBuildOrderTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Declare_OnStoredRecords_OrdersEveryKeyTypeAsItsOwnComparison()
    {
        var random = new Random(909);
        var doubles = new[] { double.NaN, -0d, 0d, double.NegativeInfinity, double.PositiveInfinity, double.MinValue, double.MaxValue, 1.5, -1.5 };
        var dates = new[] { DateTime.MinValue, DateTime.MaxValue, new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc), new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Local), new DateTime(2026, 1, 1) };
        // Primary keys spread over the integers, so that the map holds the records out of primary-key order and a
        // build must order the records that share an index key itself.
        var ids = new HashSet<int>();
        while (ids.Count < 4_000)
        {
            ids.Add(random.Next(int.MinValue, int.MaxValue));
        }

        var readings = ids.Select(id => new Reading(
            // Index keys shared by one to a few records, and by hundreds.
            id,
            random.Next(3_000) - 1_500,
            random.Next(4) == 0 ? random.Next(5) : random.NextInt64(long.MinValue, long.MaxValue),
            random.Next(3) == 0 ? doubles[random.Next(doubles.Length)] : Math.Round((random.NextDouble() - 0.5) * 100, 1),
            random.Next(3) == 0 ? dates[random.Next(dates.Length)] : new DateTime(2026, 1, 1).AddMinutes(random.Next(2_000)),
            (ushort)random.Next(40),
            "n" + random.Next(700))).ToList();

        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var collection = store.GetCollection<int, Reading>("readings", r => r.Id);
        await collection.BulkImportAsync(readings);
        foreach (var reading in readings.Where((_, i) => i % 9 == 0))
        {
            await collection.DeleteAsync(reading.Id);
        }

        readings = readings.Where((_, i) => i % 9 != 0).ToList();
        await CheckAsync(collection, readings, r => r.Score);
        await CheckAsync(collection, readings, r => r.Big);
        await CheckAsync(collection, readings, r => r.Value);
        await CheckAsync(collection, readings, r => r.At);
        await CheckAsync(collection, readings, r => r.Small);
        await CheckAsync(collection, readings, r => (float)r.Value);
        await CheckAsync(collection, readings, r => r.At - DateTime.UnixEpoch);
        await CheckAsync(collection, readings, r => r.Name);
    }

    private static async Task CheckAsync<TIndexKey>(Collection<int, Reading> collection, List<Reading> readings, Func<Reading, TIndexKey> key)
    {
        var index = collection.Index("by-" + typeof(TIndexKey).Name, key);
        await index.Ready;
        var comparer = typeof(TIndexKey) == typeof(string) ? (IComparer<TIndexKey>)StringComparer.Ordinal : Comparer<TIndexKey>.Default;
        var expected = readings.OrderBy(key, comparer).ThenBy(r => r.Id).Select(r => r.Id).ToList();
        Assert.Equal(expected, index.All().Select(r => r.Id));
        Assert.Equal(Enumerable.Reverse(expected).Take(25), index.Top(25).Select(r => r.Id));
        await collection.DropIndexAsync(index);
    }
}
