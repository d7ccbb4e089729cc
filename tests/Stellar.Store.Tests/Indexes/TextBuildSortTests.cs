using Stellar.Store.Indexes;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// A build of an index on text keys in ordinal order, without a kept order, sorts its entries by the four characters
/// after the start all keys share and compares only the keys whose four characters tie: the built order must be the
/// ordinal order of the keys, then primary keys, as LINQ sorts them, for texts that share long starts, are prefixes of
/// one another, are empty or null, hold characters of 0 or surrogates, or are all alike.
/// </summary>
public sealed class TextBuildSortTests
{
    public static TheoryData<string> Shapes => new() { "player names", "long shared start", "prefixes", "empty and null", "odd characters", "all alike", "one text", "short and few" };

    [Theory]
    [MemberData(nameof(Shapes))]
    public void Build_OfTextKeys_OrdersThemAsOrdinalOrderThenPrimaryKey(string shape)
    {
        var random = new Random(shape.Length);
        var names = Names(shape, random);
        var map = new VersionedMap<int, Named>(capacity: names.Count);
        for (var id = 0; id < names.Count; id++)
        {
            map.Apply(id, 1, new Named(id, names[id]), deleted: false, shardId: 1, size: 16);
        }

        map.Publish(1, names.Count);
        var index = new SecondaryIndex<string?, int, Named>("named", "by-name", n => n.Name, unique: false, StringComparer.Ordinal, Comparer<int>.Default, keyEquality: null, orders: null);
        Assert.True(index.Build(map, 1, _ => throw new InvalidOperationException("every record is in memory"), now: 0));
        index.Serve(1);

        var expected = Enumerable.Range(0, names.Count).OrderBy(id => names[id], StringComparer.Ordinal).ThenBy(id => id).ToList();
        Assert.Equal(expected, index.Ascending(null, 1).Select(hit => hit.Key).ToList());
    }

    private static List<string?> Names(string shape, Random random) => shape switch
    {
        "player names" => [.. Enumerable.Range(0, 5_000).Select(i => $"player-{random.Next(100_000):x}-{random.Next(1_000)}")],
        "long shared start" => [.. Enumerable.Range(0, 3_000).Select(_ => "guild-of-the-very-long-name-" + random.Next(50).ToString("D3", System.Globalization.CultureInfo.InvariantCulture) + (char)('a' + random.Next(3)))],
        "prefixes" => [.. Enumerable.Range(0, 2_000).Select(_ => "ab" + new string('c', random.Next(0, 9)) + (random.Next(4) == 0 ? "d" : ""))],
        "empty and null" => [.. Enumerable.Range(0, 1_000).Select(_ => random.Next(4) switch { 0 => null, 1 => "", 2 => "x", _ => "x" + random.Next(10) })],
        "odd characters" => [.. Enumerable.Range(0, 2_000).Select(_ => "k" + new string([.. Enumerable.Range(0, random.Next(0, 6)).Select(_ => random.Next(5) switch { 0 => '\0', 1 => '\uffff', 2 => '\ud83d', 3 => '\ude00', _ => (char)random.Next(32, 0x3000) })]))],
        "all alike" => [.. Enumerable.Repeat("same", 500)],
        "one text" => ["only"],
        _ => ["b", "a", "ab", null, "a\0", "a"],
    };

    private sealed record Named(int Id, string? Name);
}
