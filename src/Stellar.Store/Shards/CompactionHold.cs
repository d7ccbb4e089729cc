namespace Stellar.Store.Shards;

/// <summary>
/// A named cursor's hold on its collection's compaction, as read when a compaction is planned: a compaction replaces
/// only history the cursor acknowledged (before <see cref="Position"/>), unless that would keep more than
/// <see cref="MaxBytes"/> bytes of shard files from it, in which case the cursor no longer holds it.
/// </summary>
/// <param name="Cursor">The cursor's name.</param>
/// <param name="Position">The position the cursor acknowledged.</param>
/// <param name="MaxBytes">The most bytes of shard files, from the one holding <see cref="Position"/> to the newest, that the hold keeps.</param>
internal readonly record struct CompactionHold(string Cursor, ChangePosition Position, long MaxBytes);
