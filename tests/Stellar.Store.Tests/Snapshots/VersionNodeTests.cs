using Stellar.Store.Snapshots;

namespace Stellar.Store.Tests.Snapshots;

/// <summary>The compact version node: size and flags share one field, and only a value on disk carries a location.</summary>
public sealed class VersionNodeTests
{
    /// <summary>The largest record a collection accepts: key, value and the record's own 9 bytes.</summary>
    private const int LargestRecord = Collection<int, string>.MaxKeyBytes + Collection<int, string>.MaxValueBytes + 9;

    [Theory]
    [InlineData(0, false)]
    [InlineData(0, true)]
    [InlineData(LargestRecord, false)]
    [InlineData(LargestRecord, true)]
    public void Create_WithAnySizeAndDeletion_KeepsSizeAndDeletionApart(int size, bool deleted)
    {
        var node = VersionNode<string>.Create(7, deleted ? null : "v", deleted, shardId: uint.MaxValue, size, next: null, location: null, expiresAt: 0);

        Assert.Equal((7L, size, deleted, uint.MaxValue), (node.Version, node.Size, node.Deleted, node.ShardId));
        Assert.Equal(!deleted, node.InMemory);
        Assert.Null(node.Location);
    }

    [Fact]
    public void Location_OfAValueOnDisk_IsNotInMemoryAndMovesWhenCompactionSetsIt()
    {
        var first = new ValueLocation(1, 100, 2000, 30, 1500);
        var node = VersionNode<string>.Create(3, null, deleted: false, shardId: 1, size: LargestRecord, next: null, location: first, expiresAt: 0);

        Assert.False(node.InMemory);
        Assert.False(node.Deleted);
        Assert.Equal(LargestRecord, node.Size);
        Assert.Same(first, node.Location);

        var moved = new ValueLocation(9, 0, 2000, 30, 1500);
        node.Location = moved;
        Assert.Same(moved, node.Location);
    }

    [Fact]
    public void TryGetLatest_WhenTheHeadIsStagedButNotPublished_ReturnsThePublishedVersion()
    {
        var map = new VersionedMap<int, string>();
        map.Apply(1, 1, "one", deleted: false, shardId: 1, size: 1);
        map.Publish(1, 1);
        map.Apply(1, 2, "two", deleted: false, shardId: 1, size: 1);
        map.Apply(2, 2, "new", deleted: false, shardId: 1, size: 1);

        Assert.True(map.TryGetLatest(1, out var seen));
        Assert.Equal("one", seen.Value);
        Assert.False(map.TryGetLatest(2, out _));

        map.Publish(2, 2);
        Assert.True(map.TryGetLatest(1, out seen));
        Assert.Equal("two", seen.Value);
        Assert.True(map.TryGetLatest(2, out seen));
        Assert.Equal("new", seen.Value);
    }

    [Fact]
    public void VisibleAt_OverEveryHead_ReturnsExactlyTheValuesOfThePinnedVersion()
    {
        var map = new VersionedMap<int, string>();
        var model = new Dictionary<int, string>();
        for (var key = 0; key < 50; key++)
        {
            map.Apply(key, 1, $"{key}@1", deleted: false, shardId: 1, size: 1);
            model[key] = $"{key}@1";
        }

        map.Publish(1, model.Count);
        var pinned = map.Pin();
        var atPin = new Dictionary<int, string>(model);

        // Newer versions: updates, deletions and inserts the pinned scan must not see.
        for (var key = 0; key < 60; key += 3)
        {
            var deleted = key % 2 == 0;
            map.Apply(key, 2, deleted ? null : $"{key}@2", deleted, shardId: 1, size: 1);
        }

        map.Publish(2, 0);
        var scanned = new Dictionary<int, string>();
        foreach (var (key, head) in map.Heads)
        {
            if (VersionedMap<int, string>.VisibleAt(head, pinned.Version) is { } node)
            {
                scanned.Add(key, node.Value!);
            }
        }

        Assert.Equal(atPin.OrderBy(p => p.Key), scanned.OrderBy(p => p.Key));
        map.Unpin(pinned.Version);
    }
}
