using MessagePack;

namespace Stellar.Store.Feed;

/// <summary>
/// A change feed cursor as the store's own collection <c>$cursors</c> keeps it: its key <c>collection/cursor</c>, the
/// position its consumer acknowledged (text form), and, when it holds compaction back, the most bytes of shard files it
/// may keep from compaction. Stored as <see cref="FeedCursorRecordFormatter"/> writes it.
/// </summary>
/// <param name="Id">The key: the collection's name, a slash, the cursor's name.</param>
/// <param name="Position">The acknowledged position's text form (<see cref="ChangePosition.ToString"/>).</param>
/// <param name="HoldBytes">The bound of the cursor's hold on compaction; null when it holds nothing.</param>
[MessagePackFormatter(typeof(FeedCursorRecordFormatter))]
internal sealed record FeedCursorRecord(string Id, string Position, long? HoldBytes);
