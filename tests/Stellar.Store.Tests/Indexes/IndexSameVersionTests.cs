using Stellar.Store.Indexes;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// A commit group gives all its writes one version, so two writes of one record in a group (two callers, or a batch)
/// can take an index key, leave it and take it again within one version: the index must still list the record once,
/// under the key it ended with, through the trims that follow. An oracle of the records' last values checks each answer.
/// </summary>
public sealed class IndexSameVersionTests
{
    [Fact]
    public void ARecordThatLeavesAKeyAndTakesItAgainInOneVersion_IsListedOnceThroughTheTrimsThatFollow()
    {
        var map = new VersionedMap<int, Player>(capacity: 8);
        var records = new Dictionary<int, Player> { [1] = new(1, 5), [2] = new(2, 6), [3] = new(3, 7) };
        foreach (var record in records.Values)
        {
            map.Apply(record.Id, 1, record, deleted: false, shardId: 1, size: 16);
        }

        map.Publish(1, records.Count);
        var index = new SecondaryIndex<int, int, Player>("players", "by-score", p => p.Score, unique: false, Comparer<int>.Default, Comparer<int>.Default, keyEquality: null, orders: null);
        Assert.True(index.Build(map, 1, _ => throw new InvalidOperationException("every record is in memory"), now: 0));
        index.Serve(1);
        map.HorizonMoved = index.Trim;

        // Version 2: record 1 moves to 10, to 20 and back to 10; record 2 to 10 beside it.
        Write(map, index, records, 2, new Player(1, 10), new Player(1, 20), new Player(1, 10), new Player(2, 10));
        Assert.Equal(Expected(records), Answer(index, 2));

        // Version 3: record 1 leaves 10 and comes back to it again, record 3 joins it; version 4: record 1 moves on.
        Write(map, index, records, 3, new Player(1, 11), new Player(1, 10), new Player(3, 10));
        Assert.Equal(Expected(records), Answer(index, 3));
        Write(map, index, records, 4, new Player(1, 30));
        Assert.Equal(Expected(records), Answer(index, 4));
        Write(map, index, records, 5, new Player(2, 40));
        Assert.Equal(Expected(records), Answer(index, 5));

        // Every record's entry that moved since the build is the one listed, and nothing ended is left once trimmed.
        Assert.Equal(3, index.Entries.Count);
    }

    [Fact]
    public void ARecordUnderSeveralKeysThatDropsAKeyAndTakesItAgainInOneVersion_IsListedOnceUnderIt()
    {
        var map = new VersionedMap<int, Gear>(capacity: 8);
        map.Apply(1, 1, new Gear(1, ["a", "b"]), deleted: false, shardId: 1, size: 16);
        map.Publish(1, 1);
        var index = new MultiKeyIndex<string, int, Gear>("gear", "by-tag", g => g.Tags, StringComparer.Ordinal, Comparer<int>.Default, keyEquality: null);
        Assert.True(index.Build(map, 1, _ => throw new InvalidOperationException("every record is in memory"), now: 0));
        index.Serve(1);
        map.HorizonMoved = index.Trim;

        // Version 2: "c" is taken, dropped and taken again; "a" dropped and taken again; "b" dropped.
        var version = 2L;
        foreach (var tags in new[] { new[] { "b", "c" }, ["b"], ["a", "c"] })
        {
            var gear = new Gear(1, tags);
            map.Apply(1, version, gear, deleted: false, shardId: 1, size: 16);
            index.Applied(1, deleted: false, gear, version, map.LastApplied);
        }

        map.Publish(version, 1);
        Assert.Equal(["a", "c"], index.Ascending(null, version).Select(hit => hit.IndexKey));

        map.Apply(1, 3, new Gear(1, ["d"]), deleted: false, shardId: 1, size: 16);
        index.Applied(1, deleted: false, new Gear(1, ["d"]), 3, map.LastApplied);
        map.Publish(3, 1);
        Assert.Equal(["d"], index.Ascending(null, 3).Select(hit => hit.IndexKey));
        Assert.Equal(1, index.Entries.Count);
    }

    /// <summary>Applies <paramref name="writes"/> as one commit group at <paramref name="version"/>, and to the oracle.</summary>
    private static void Write(VersionedMap<int, Player> map, SecondaryIndex<int, int, Player> index, Dictionary<int, Player> records, long version, params Player[] writes)
    {
        foreach (var write in writes)
        {
            map.Apply(write.Id, version, write, deleted: false, shardId: 1, size: 16);
            index.Applied(write.Id, deleted: false, write, version, map.LastApplied);
            records[write.Id] = write;
        }

        map.Publish(version, records.Count);
    }

    private static List<(int Score, int Id)> Expected(Dictionary<int, Player> records) =>
        records.Values.Select(p => (p.Score, p.Id)).Order().ToList();

    private static List<(int Score, int Id)> Answer(SecondaryIndex<int, int, Player> index, long version) =>
        index.Ascending(null, version).Select(hit => (hit.IndexKey, hit.Key)).ToList();

    /// <summary>A record of the test: a primary key and a score.</summary>
    private sealed record Player(int Id, int Score);
}
