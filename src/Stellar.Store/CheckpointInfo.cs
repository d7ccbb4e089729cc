namespace Stellar.Store;

/// <summary>
/// A checkpoint of a store (see <see cref="StellarStore.CheckpointAsync"/>): a directory that opens as a store holding
/// exactly the store's records at the checkpoint's cut.
/// </summary>
/// <remarks>Thread safety: immutable.</remarks>
public sealed record CheckpointInfo
{
    /// <summary>The checkpoint's name, unique among the store's checkpoints.</summary>
    public required string Name { get; init; }

    /// <summary>The checkpoint's directory: give it to <see cref="StellarStore.RestoreAsync"/> or <see cref="StellarStore.OpenReadOnlyAsync"/>.</summary>
    public required string Path { get; init; }

    /// <summary>When the checkpoint was taken, by the store's <see cref="StoreOptions.Clock"/>.</summary>
    public required DateTimeOffset CreatedAt { get; init; }

    /// <summary>
    /// Bytes the checkpoint shares with the store and with other checkpoints by hard link: sealed shards, which no one
    /// ever changes, and the last checkpoint's copy of an active shard that got no block since. They cost no disk space
    /// until the store (or that checkpoint) deletes its own name for them.
    /// </summary>
    public required long SharedBytes { get; init; }

    /// <summary>
    /// Bytes the checkpoint copied: the committed part of each collection's active shard written since the last
    /// checkpoint (a checkpoint seals the active shards it copies at their next write, so the next one copies only newer
    /// blocks), and any shard the file system could not link. This is what the checkpoint cost on disk.
    /// </summary>
    public required long CopiedBytes { get; init; }

    /// <summary>
    /// The longest time one collection's writer held its writes for the checkpoint: the time to list the collection's
    /// shards for the checkpoint, between two groups of writes. The links and the copy run after, while writes go on.
    /// </summary>
    public required TimeSpan WriterPause { get; init; }
}
