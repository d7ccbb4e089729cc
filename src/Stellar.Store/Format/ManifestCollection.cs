using System.Globalization;

namespace Stellar.Store.Format;

/// <summary>One collection in the manifest: its name, id, CLR types and chain of shards (oldest first).</summary>
internal sealed class ManifestCollection
{
    public string Name { get; set; } = "";

    public uint Id { get; set; }

    public string KeyType { get; set; } = "";

    public string ValueType { get; set; } = "";

    /// <summary>Shard ids in replay order; the last one is the active shard.</summary>
    public List<uint> Shards { get; set; } = new();

    /// <summary>
    /// What is known of each listed shard (its header's salt, first sequence, and once sealed its length and last
    /// sequence), by shard id. Format-1 shards have an entry only once they are sealed; every other shard has one.
    /// </summary>
    public Dictionary<uint, ManifestShard> ShardDetails { get; set; } = new();

    /// <summary>The next shard id to hand out: ids are never reused, so a (shard, sequence) nonce never repeats.</summary>
    public uint NextShardId { get; set; } = 1;

    /// <summary>The file name of a shard. File names never come from user text.</summary>
    public static string ShardFileName(uint collectionId, uint shardId) => $"c{collectionId:x8}-{shardId:x8}.shard";

    /// <summary>
    /// Reads the ids out of a shard file's name, with or without <paramref name="suffix"/> after it (a compaction
    /// output not yet renamed); false for any other name.
    /// </summary>
    public static bool TryParseShardFileName(string name, string suffix, out uint collectionId, out uint shardId)
    {
        collectionId = shardId = 0;
        var span = name.AsSpan();
        if (span.EndsWith(suffix, StringComparison.Ordinal))
        {
            span = span[..^suffix.Length];
        }

        const NumberStyles Hex = NumberStyles.AllowHexSpecifier;
        return span.Length == 24 && span[0] == 'c' && span[9] == '-' && span.EndsWith(".shard", StringComparison.Ordinal)
            && uint.TryParse(span[1..9], Hex, CultureInfo.InvariantCulture, out collectionId)
            && uint.TryParse(span[10..18], Hex, CultureInfo.InvariantCulture, out shardId);
    }
}
