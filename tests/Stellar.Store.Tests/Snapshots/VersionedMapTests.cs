using Stellar.Store.Snapshots;

namespace Stellar.Store.Tests.Snapshots;

/// <summary>The version map's retention rules, one step at a time on one thread.</summary>
public sealed class VersionedMapTests
{
    [Fact]
    public void Publish_WithNoPinOlderThanTheReplacingVersion_CutsTheReplacedVersionAtOnce()
    {
        var map = new VersionedMap<int, string>();
        map.Apply(1, 1, "one", deleted: false, shardId: 1, size: 1);
        map.Publish(1, 1);
        map.Apply(1, 2, "two", deleted: false, shardId: 1, size: 1);
        map.Publish(2, 1);

        Assert.Same(VersionNode<string>.Trimmed, map.Head(1)!.Next);
        Assert.Equal(0, map.RetainedVersions);
    }

    [Fact]
    public void Unpin_OfTheOldestPin_SignalsOnceAndTheNextPublishCutsWhatItHeld()
    {
        var map = new VersionedMap<int, string>();
        var signals = 0;
        map.Released = () => signals++;
        map.Apply(1, 1, "one", deleted: false, shardId: 1, size: 1);
        map.Publish(1, 1);
        var old = map.Pin();
        var newer = map.Pin();
        map.Apply(1, 2, "two", deleted: false, shardId: 1, size: 1);
        map.Publish(2, 1);

        Assert.True(map.TryGetAt(1, old.Version, now: 0, out var seen));
        Assert.Equal("one", seen.Value);
        Assert.Equal(1, map.RetainedVersions);
        Assert.Equal(2, map.PinCount);

        map.Unpin(newer.Version);
        Assert.Equal(0, signals); // another pin at that version still holds it
        map.Unpin(old.Version);
        Assert.Equal(1, signals);
        Assert.Equal(0, map.PinCount);

        map.Publish(3, 1);
        Assert.Same(VersionNode<string>.Trimmed, map.Head(1)!.Next);
        Assert.Equal(0, map.RetainedVersions);
        Assert.True(map.TryGetLatest(1, out var latest));
        Assert.Equal("two", latest.Value);
    }

    [Fact]
    public void Unpin_OfAPinAtTheNewestVersion_DoesNotSignal()
    {
        var map = new VersionedMap<int, string>();
        var signals = 0;
        map.Released = () => signals++;
        map.Apply(1, 1, "one", deleted: false, shardId: 1, size: 1);
        map.Publish(1, 1);
        map.Unpin(map.Pin().Version);

        Assert.Equal(0, signals);
    }
}
