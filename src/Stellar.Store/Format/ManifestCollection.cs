using System.Text.Json.Serialization;

namespace Stellar.Store.Format;

/// <summary>
/// One collection in the manifest: its name, id, CLR types and chain of shards (oldest first). Immutable once built:
/// the manifest's owner (<see cref="Shards.ManifestStore"/>) replaces an entry whole on every change, so a chain may
/// read its own entry without a lock while another collection's change is serialized.
/// </summary>
internal sealed class ManifestCollection
{
    public string Name { get; init; } = "";

    public uint Id { get; init; }

    public string KeyType { get; init; } = "";

    public string ValueType { get; init; } = "";

    /// <summary>Shard ids in replay order; the last one is the active shard.</summary>
    public IReadOnlyList<uint> Shards { get; init; } = [];

    /// <summary>
    /// What is known of each listed shard (its header's salt, first sequence, and once sealed its length and last
    /// sequence), by shard id. Format-1 shards have an entry only once they are sealed; every other shard has one.
    /// </summary>
    public IReadOnlyDictionary<uint, ManifestShard> ShardDetails { get; init; } = new Dictionary<uint, ManifestShard>();

    /// <summary>The next shard id to hand out: ids are never reused, so a (shard, sequence) nonce never repeats.</summary>
    public uint NextShardId { get; init; } = 1;

    /// <summary>
    /// Shard files of this collection, unlisted, that an open found when this manifest had not handed out their ids (it
    /// was older than them: put back from a copy), or when it was an unauthenticated manifest that the open signed, by
    /// id; null when there are none. Their ids count as handed out from
    /// then on, so no shard reuses them, but they are kept, never loaded and never deleted: only a manifest that lists
    /// them can say what they hold. Not written when null, so a store that never had one keeps its manifest's bytes.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<uint>? KeptShards { get; init; }

    /// <summary>
    /// The last block sequence whose history the latest compaction replaced (null: never compacted by a build that
    /// records it). Blocks up to it are gone; the chain's shards whose last sequence is at most this one hold their
    /// live records instead (the compaction's output), so the change feed reads those as a snapshot, not as history.
    /// </summary>
    public ulong? CompactedThrough { get; init; }
}
