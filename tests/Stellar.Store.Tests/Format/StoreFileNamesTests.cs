using Stellar.Store.Format;

namespace Stellar.Store.Tests.Format;

/// <summary>The file names of docs/format.md, spelled here as the document spells them.</summary>
public sealed class StoreFileNamesTests
{
    [Fact]
    public void Names_OfTheStoresFiles_AreTheOnesTheFormatDocumentNames()
    {
        Assert.Equal("MANIFEST", StoreFileNames.Manifest);
        Assert.Equal("LOCK", StoreFileNames.Lock);
        Assert.Equal("c00000001-000000ff.shard", StoreFileNames.Shard(1, 255));
        Assert.Equal("cffffffff-ffffffff.shard", StoreFileNames.Shard(uint.MaxValue, uint.MaxValue));
        Assert.Equal("c0000002a-00000007.shard.compacting", StoreFileNames.Compacting(42, 7));
    }

    [Theory]
    [InlineData("c00000001-000000ff.shard", 1u, 255u, false)]
    [InlineData("c0000002a-00000007.shard.compacting", 42u, 7u, true)]
    [InlineData("cffffffff-ffffffff.shard", uint.MaxValue, uint.MaxValue, false)]
    public void TryParseShard_OfAShardOrCompactionOutputName_ReadsBothIds(string name, uint collection, uint shard, bool compacting)
    {
        Assert.True(StoreFileNames.TryParseShard(name, out var collectionId, out var shardId));
        Assert.Equal((collection, shard), (collectionId, shardId));
        Assert.Equal(compacting, StoreFileNames.IsCompacting(name));
    }

    [Theory]
    [InlineData("MANIFEST")]
    [InlineData("MANIFEST.tmp")]
    [InlineData("c0000001-000000ff.shard")]
    [InlineData("c000000001-00000ff.shard")]
    [InlineData("d00000001-000000ff.shard")]
    [InlineData("c00000001_000000ff.shard")]
    [InlineData("c0000000g-000000ff.shard")]
    [InlineData("c00000001-000000ff.shard.tmp")]
    [InlineData("c00000001-000000ff.shardx")]
    [InlineData("x.shard")]
    public void TryParseShard_OfAnyOtherName_IsFalse(string name) =>
        Assert.False(StoreFileNames.TryParseShard(name, out _, out _));

    [Theory]
    [InlineData("c00000001-000000ff.shard", true)]
    [InlineData("x.shard", true)]
    [InlineData("c00000001-000000ff.shard.compacting", false)]
    [InlineData("MANIFEST", false)]
    public void HasShardExtension_OfAName_IsTrueForEveryNameEndingInTheExtension(string name, bool expected) =>
        Assert.Equal(expected, StoreFileNames.HasShardExtension(name));
}
