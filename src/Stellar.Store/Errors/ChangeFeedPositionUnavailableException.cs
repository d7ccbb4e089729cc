namespace Stellar.Store;

/// <summary>
/// A change feed was asked to start from a position whose changes are no longer on disk: a compaction replaced the
/// blocks it names with a snapshot of the records alive then. <see cref="Oldest"/> is the oldest position available
/// now (a feed from <see cref="ChangePosition.Start"/> starts there). For a named cursor's feed, <see cref="Cursor"/>
/// names the cursor: it held no compaction, or its hold kept more than its bound and compaction went on.
/// </summary>
public sealed class ChangeFeedPositionUnavailableException : StellarStoreException
{
    /// <summary>Creates the exception for a feed of <paramref name="collection"/> from <paramref name="requested"/>.</summary>
    public ChangeFeedPositionUnavailableException(string collection, ChangePosition requested, ChangePosition oldest)
        : this(collection, null, requested, oldest)
    {
    }

    /// <summary>
    /// Creates the exception for a feed of <paramref name="collection"/> from <paramref name="requested"/>, the position
    /// of its named cursor <paramref name="cursor"/> (null: a feed from a position, with no cursor).
    /// </summary>
    public ChangeFeedPositionUnavailableException(string collection, string? cursor, ChangePosition requested, ChangePosition oldest)
        : base(cursor is null
            ? $"The change feed of collection '{collection}' cannot start from position {requested}: a compaction replaced the changes after it. The oldest position available is {oldest}; a feed from ChangePosition.Start starts there, with a snapshot of the records alive at the compaction."
            : $"Cursor '{cursor}' of collection '{collection}' stands at position {requested}, but a compaction replaced the changes after it: the cursor held no compaction, or its hold kept more shard bytes than its bound allows. The oldest position available is {oldest}; acknowledge it to resume the cursor there, with a snapshot of the records alive at the compaction.")
    {
        Collection = collection;
        Cursor = cursor;
        Requested = requested;
        Oldest = oldest;
    }

    /// <summary>The collection whose feed was asked for.</summary>
    public string Collection { get; }

    /// <summary>The named cursor whose position is gone; null for a feed from a position given directly.</summary>
    public string? Cursor { get; }

    /// <summary>The position the feed was asked to start from.</summary>
    public ChangePosition Requested { get; }

    /// <summary>The oldest position available when the feed looked.</summary>
    public ChangePosition Oldest { get; }
}
