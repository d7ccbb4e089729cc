namespace Stellar.Store.TestHost.Workload;

/// <summary>The store options of the workload, the same in the child that writes and the parent that checks.</summary>
public static class WorkloadOptions
{
    /// <summary>The smallest shard the store allows, so that a short run rolls shards (and replaces the manifest) often.</summary>
    public const long ShardBytes = 64 * 1024;

    /// <summary>A fixed test key: the parent must reopen what the child encrypted.</summary>
    public static byte[] EncryptionKey() => Enumerable.Range(0, 32).Select(i => (byte)(0xA0 ^ i)).ToArray();

    /// <summary>
    /// Options for one mode of the workload. Small shards make automatic compaction run often, so a kill lands in
    /// the middle of one too; <paramref name="autoCompaction"/> turns it off where a test counts storage operations.
    /// </summary>
    public static StoreOptions Create(Durability durability, Compression compression, bool encrypted, bool autoCompaction = true) => new()
    {
        Durability = durability,
        Compression = compression,
        EncryptionKey = encrypted ? EncryptionKey() : null,
        MaxShardBytes = ShardBytes,
        CompactionThreshold = autoCompaction ? 0.5 : 0,
    };
}
