namespace Stellar.Store;

/// <summary>A collection's size and the share of its files that is live. Immutable.</summary>
/// <param name="Count">Live keys.</param>
/// <param name="StoredBytes">Record bytes (before compression) in the collection's shard files, live or not.</param>
/// <param name="LiveBytes">Record bytes readers can still see; the rest is what compaction reclaims.</param>
/// <param name="Compactions">Compactions completed since the store was opened.</param>
/// <param name="LastCompactionError">Why the last automatic compaction failed, or null when it did not.</param>
/// <param name="RetainedVersions">
/// Versions held in memory only because an open snapshot may still read them: replaced values and deletion markers.
/// Zero when no snapshot older than the newest write is open; it falls back to zero once such snapshots are disposed
/// (or collected) and the writer has caught up.
/// </param>
/// <param name="OpenSnapshots">
/// Pins held now: undisposed snapshots, <c>Query</c> enumerations in progress, and a running compaction's own.
/// </param>
/// <param name="UncommittedUnitBlocks">
/// Blocks of writes across collections (<see cref="StellarStore.WriteAsync"/>) that the collection's load found on disk
/// without their unit's decision: the store stopped after writing this collection's part and before the unit committed,
/// so the unit never completed successfully. Their records were left out, in every collection the unit touched; they stay
/// in the files, counted as dead bytes, until compaction drops them. Zero when every unit found was whole.
/// </param>
public sealed record CollectionStatistics(long Count, long StoredBytes, long LiveBytes, long Compactions, Exception? LastCompactionError,
    int RetainedVersions, int OpenSnapshots, long UncommittedUnitBlocks = 0);
