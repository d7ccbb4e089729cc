using Stellar.Store.Indexes;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// The writer's set of indexes: an index built beside the writer takes the versions held for it at its install, and
/// one of them may fail it (its key selector throws for a value written during the build). Such an index answers
/// nothing and its name is free again, so the writer must not keep it: it would hold its entries in memory for the
/// life of the store and be told of every write.
/// </summary>
public sealed class IndexSetTests
{
    [Fact]
    public void Install_OfAnIndexThatAHeldVersionFails_KeepsNothingOfIt()
    {
        var map = new VersionedMap<int, Scored>(capacity: 8);
        map.Apply(1, 1, new Scored(1, 10), deleted: false, shardId: 1, size: 16);
        map.Publish(1, 1);
        var set = new IndexSet<int, Scored>();
        var index = new SecondaryIndex<int, int, Scored>("scores", "by-score", s => s.Score >= 0 ? s.Score : throw new FormatException("no negative scores"), unique: false, Comparer<int>.Default, Comparer<int>.Default, keyEquality: null, orders: null);
        var held = set.Building(index);
        Assert.True(index.Build(map, 1, _ => throw new InvalidOperationException("every record is in memory"), now: 0));

        // Written during the build: held for the index, which its selector fails at the install.
        var failing = new Scored(2, -1);
        map.Apply(2, 2, failing, deleted: false, shardId: 1, size: 16);
        set.Applied(2, deleted: false, failing, 2, map.LastApplied);
        map.Publish(2, 2);

        Assert.False(set.Install(index, 2));
        Assert.NotNull(index.Failure);
        Assert.False(set.Any);
        Assert.Equal(-1, index.BuiltAt);
    }

    [Fact]
    public void Install_OfAnIndexThatTakesItsHeldVersions_KeepsIt()
    {
        var map = new VersionedMap<int, Scored>(capacity: 8);
        map.Apply(1, 1, new Scored(1, 10), deleted: false, shardId: 1, size: 16);
        map.Publish(1, 1);
        var set = new IndexSet<int, Scored>();
        var index = new SecondaryIndex<int, int, Scored>("scores", "by-score", s => s.Score, unique: false, Comparer<int>.Default, Comparer<int>.Default, keyEquality: null, orders: null);
        set.Building(index);
        Assert.True(index.Build(map, 1, _ => throw new InvalidOperationException("every record is in memory"), now: 0));
        var written = new Scored(2, 5);
        map.Apply(2, 2, written, deleted: false, shardId: 1, size: 16);
        set.Applied(2, deleted: false, written, 2, map.LastApplied);
        map.Publish(2, 2);

        Assert.True(set.Install(index, 2));
        Assert.True(set.Any);
        Assert.Equal(2, index.BuiltAt);
        Assert.Equal([2, 1], index.Ascending(null, 2).Select(hit => hit.Key));
    }

    private sealed record Scored(int Id, int Score);
}
