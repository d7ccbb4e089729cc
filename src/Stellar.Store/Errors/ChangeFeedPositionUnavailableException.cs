namespace Stellar.Store;

/// <summary>
/// A change feed was asked to start from a position whose changes are no longer on disk: a compaction replaced the
/// blocks it names with a snapshot of the records alive then. <see cref="Oldest"/> is the oldest position available
/// now (a feed from <see cref="ChangePosition.Start"/> starts there).
/// </summary>
public sealed class ChangeFeedPositionUnavailableException : StellarStoreException
{
    /// <summary>Creates the exception for a feed of <paramref name="collection"/> from <paramref name="requested"/>.</summary>
    public ChangeFeedPositionUnavailableException(string collection, ChangePosition requested, ChangePosition oldest)
        : base($"The change feed of collection '{collection}' cannot start from position {requested}: a compaction replaced the changes after it. The oldest position available is {oldest}; a feed from ChangePosition.Start starts there, with a snapshot of the records alive at the compaction.")
    {
        Collection = collection;
        Requested = requested;
        Oldest = oldest;
    }

    /// <summary>The collection whose feed was asked for.</summary>
    public string Collection { get; }

    /// <summary>The position the feed was asked to start from.</summary>
    public ChangePosition Requested { get; }

    /// <summary>The oldest position available when the feed looked.</summary>
    public ChangePosition Oldest { get; }
}
