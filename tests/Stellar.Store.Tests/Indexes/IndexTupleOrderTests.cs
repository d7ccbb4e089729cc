using System.Globalization;
using Stellar.Store.Indexes;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// Index keys that are tuples holding text: their text is ordered ordinally, as a string key's is, so that the order is
/// the same on every machine and thread whatever its culture, and two keys are equal only when their text is. The
/// oracle is LINQ's ordering of the test's own records with <see cref="StringComparer.Ordinal"/>.
/// </summary>
public sealed class IndexTupleOrderTests : IDisposable
{
    /// <summary>
    /// Names that a culture's order and the ordinal order sort differently (case, a letter with a diaeresis that
    /// Swedish puts after z), and two that a culture holds equal (a soft hyphen is ignored by the culture's comparison).
    /// </summary>
    private static readonly string[] Names = ["a", "B", "b", "A", "\u00e4", "z", "coop", "co\u00adop", "Zeta", "\u00c4rr"];

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task TupleKeys_HoldingText_AreInOrdinalOrder()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var all = await Insert(players);
        var byLevel = players.Index("by-level", p => (p.Level, p.Name));
        await byLevel.Ready;

        Assert.Equal(Ordinal(all).Select(p => p.Id), byLevel.All().Select(p => p.Id));
        Assert.Equal(Ordinal(all).Where(p => p.Level == 1 && string.CompareOrdinal(p.Name, "B") >= 0 && string.CompareOrdinal(p.Name, "b") <= 0).Select(p => p.Id), byLevel.Range((1, "B"), (1, "b")).Select(p => p.Id));

        // Written after the build: the list the writer keeps in order, not the run the build sorted.
        var later = all.Select(p => p with { Id = p.Id + 1000 }).ToList();
        foreach (var player in later)
        {
            await players.UpsertAsync(player);
        }

        Assert.Equal(Ordinal(all.Concat(later)).Select(p => p.Id), byLevel.All().Select(p => p.Id));
    }

    [Fact]
    public async Task TupleKeys_ReadOnAThreadOfAnotherCulture_FindEveryRecord()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var all = await Insert(players);
        var byLevel = players.Index("by-level", p => (p.Level, p.Name));
        await byLevel.Ready;
        foreach (var player in all.Select(p => p with { Id = p.Id + 1000 }))
        {
            await players.UpsertAsync(player);
        }

        var before = CultureInfo.CurrentCulture;
        try
        {
            foreach (var culture in new[] { "sv-SE", "tr-TR", "en-US" })
            {
                CultureInfo.CurrentCulture = CultureInfo.GetCultureInfo(culture);
                foreach (var player in all)
                {
                    Assert.Equal(new[] { player.Id, player.Id + 1000 }, byLevel.Equal((player.Level, player.Name)).Select(p => p.Id));
                }
            }
        }
        finally
        {
            CultureInfo.CurrentCulture = before;
        }
    }

    [Fact]
    public async Task UniqueTupleKeys_WhoseTextDiffersOnlyByAnIgnorableCharacter_AreDistinct()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byName = players.Index("by-name", p => (p.Level, p.Name), unique: true);
        await byName.Ready;

        await players.UpsertAsync(new Player(1, "coop", 1, 0));
        await players.UpsertAsync(new Player(2, "co\u00adop", 1, 0));
        await Assert.ThrowsAsync<UniqueConstraintException>(() => players.UpsertAsync(new Player(3, "coop", 1, 0)));

        Assert.Equal(new[] { 1 }, byName.Equal((1, "coop")).Select(p => p.Id));
        Assert.Equal(new[] { 2 }, byName.Equal((1, "co\u00adop")).Select(p => p.Id));
    }

    [Fact]
    public void Of_TuplesOfEveryShape_OrdersTheirTextOrdinallyAndTheRestAsTheirTypes()
    {
        var pairs = IndexOrder.Of<(string, int)>("The index key");
        Assert.True(pairs.Compare(("B", 9), ("a", 0)) < 0);
        Assert.True(pairs.Compare(("a", 0), ("a", 1)) < 0);
        Assert.Equal(0, pairs.Compare(("a", 1), ("a", 1)));
        Assert.True(pairs.Compare((null!, 5), ("", 0)) < 0);

        // Eight items and more go on in a nested tuple (Rest), which is ordered the same way.
        var nine = IndexOrder.Of<(int, int, int, int, int, int, int, string, string)>("The index key");
        Assert.True(nine.Compare((1, 1, 1, 1, 1, 1, 1, "x", "B"), (1, 1, 1, 1, 1, 1, 1, "x", "a")) < 0);
        Assert.True(nine.Compare((1, 1, 1, 1, 1, 1, 1, "x", "a"), (1, 1, 1, 1, 1, 1, 2, "A", "A")) < 0);

        var nested = IndexOrder.Of<(int, (string, long))>("The index key");
        Assert.True(nested.Compare((1, ("Z", 5)), (1, ("a", 0))) < 0);

        // Reference tuples, with null below every tuple, and nullable value tuples, with null below every value.
        var references = IndexOrder.Of<Tuple<string, int>>("The index key");
        Assert.True(references.Compare(Tuple.Create("B", 1), Tuple.Create("a", 0)) < 0);
        Assert.True(references.Compare(null, Tuple.Create("a", 0)) < 0);
        Assert.True(references.Compare(Tuple.Create("a", 0), null) > 0);
        Assert.Equal(0, references.Compare(null, null));

        var nullable = IndexOrder.Of<(string, int)?>("The index key");
        Assert.True(nullable.Compare(("B", 1), ("a", 0)) < 0);
        Assert.True(nullable.Compare(null, ("a", 0)) < 0);
        Assert.True(nullable.Compare(("a", 0), null) > 0);
        Assert.Equal(0, nullable.Compare(null, null));
    }

    [Fact]
    public void Of_TuplesWithoutText_OrderAsTheTuplesOwnComparison()
    {
        // Without text the culture plays no part, so the tuples' own comparison is the oracle, NaN and -0 included.
        var random = new Random(7);
        double[] doubles = [double.NaN, double.NegativeInfinity, -1, -0d, 0d, 1e-300, 1, double.PositiveInfinity];
        var tuples = Enumerable.Range(0, 400).Select(_ => (
            doubles[random.Next(doubles.Length)],
            new DateTime(2026, 1, 1, 0, 0, 0, (DateTimeKind)random.Next(3)).AddDays(random.Next(3)),
            new Guid(random.Next(3), 0, 0, new byte[8]),
            (long?)(random.Next(3) == 0 ? null : random.Next(3)))).ToList();
        var ours = IndexOrder.Of<(double, DateTime, Guid, long?)>("The index key");
        foreach (var x in tuples)
        {
            foreach (var y in tuples.Take(40))
            {
                Assert.Equal(Math.Sign(Comparer<(double, DateTime, Guid, long?)>.Default.Compare(x, y)), Math.Sign(ours.Compare(x, y)));
            }
        }
    }

    [Fact]
    public void Of_ATupleWithAnItemThatHasNoOrder_ThrowsNamingTheItem()
    {
        var error = Assert.Throws<ArgumentException>(() => IndexOrder.Of<(int, object)>("The index key"));
        Assert.Contains("item 2", error.Message);
        Assert.Contains("has no order", error.Message);
    }

    private static async Task<List<Player>> Insert(Collection<int, Player> players)
    {
        var all = Names.SelectMany((name, i) => new[] { new Player(2 * i, name, 1, 0), new Player((2 * i) + 1, name, 2, 0) }).ToList();
        await players.WriteAsync(b =>
        {
            foreach (var player in all)
            {
                b.Insert(player);
            }
        });
        return all;
    }

    private static IEnumerable<Player> Ordinal(IEnumerable<Player> players) =>
        players.OrderBy(p => p.Level).ThenBy(p => p.Name, StringComparer.Ordinal).ThenBy(p => p.Id);
}
