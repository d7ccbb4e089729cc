namespace Stellar.Store.Shards;

/// <summary>
/// A cursor's hold that a compaction passed: keeping the history after the cursor's position would have kept more
/// shard bytes than the hold's bound, so the compaction replaced that history, and the cursor's next read finds its
/// position unavailable (or, from the start, reads the compaction's snapshot instead of the history).
/// </summary>
/// <param name="Cursor">The cursor's name.</param>
/// <param name="Position">The position the cursor acknowledged, as the compaction read it.</param>
/// <param name="HeldBytes">The bytes of shard files the hold would have kept: from the shard holding the position to the newest.</param>
/// <param name="MaxBytes">The hold's bound.</param>
internal readonly record struct PassedHold(string Cursor, ChangePosition Position, long HeldBytes, long MaxBytes);
