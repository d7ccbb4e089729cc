using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

/// <summary>What the change feed reads of the chain: its current listing and its shard files, from any thread.</summary>
internal sealed partial class ShardChain
{
    /// <summary>Any thread: the collection's manifest entry as last published (shards, their details, what compaction replaced).</summary>
    public ManifestCollection Listing => Volatile.Read(ref _entry);

    /// <summary>
    /// Any thread: opens a shard file for the feed's sequential reads (its own handle, closed by the feed, so a
    /// compaction that retires the shard meanwhile leaves a reader on Unix its file to the end).
    /// </summary>
    /// <exception cref="FileNotFoundException">The shard is gone (a compaction retired it).</exception>
    public IStorageFile OpenForFeed(uint shardId) => _storage.OpenRead(StoreFileNames.Shard(_collectionId, shardId));

    /// <summary>Where the blocks of <paramref name="shardId"/> start in its file: after the shard header, which a format-1 shard (no salt) lacks.</summary>
    public static long BlocksStart(ManifestCollection listing, uint shardId) =>
        listing.ShardDetails.TryGetValue(shardId, out var details) && details.Salt is not null ? ShardHeader.Size : 0;

    /// <summary>Writer only: hands what Buffered mode gathered in memory to the OS, so that a change feed can read it.</summary>
    public void HandToOs() => DrainBuffer();
}
