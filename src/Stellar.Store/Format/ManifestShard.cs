namespace Stellar.Store.Format;

/// <summary>
/// What the manifest knows of one shard beyond its id: the salt of its header (shards written by format 2 and
/// later), the sequence of its first block, and, once the shard is sealed, its exact length and last block sequence.
/// Recovery holds every shard to it, so a sealed shard cut short, grown, or swapped for another copy's file, and a
/// block removed from the start of a shard, are refused instead of read as a shorter history. Immutable: sealing a
/// shard replaces its details.
/// </summary>
internal sealed class ManifestShard
{
    /// <summary>The salt in the shard's header; null for a shard written by format 1 (no header).</summary>
    public byte[]? Salt { get; init; }

    /// <summary>The sequence of the shard's first block, when known (not for format-1 shards).</summary>
    public ulong? FirstSequence { get; init; }

    /// <summary>The sealed shard's length in bytes, header included; null while the shard may still grow.</summary>
    public long? SealedLength { get; init; }

    /// <summary>The sealed shard's last block sequence; null while it may grow, or when it holds no block.</summary>
    public ulong? LastSequence { get; init; }

    /// <summary>Whether the shard is complete: no block is ever appended to it again.</summary>
    public bool IsSealed => SealedLength is not null;
}
