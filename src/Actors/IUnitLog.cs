namespace Stellar.Store.Actors;

/// <summary>Where <see cref="UnitCoordinator"/> records its decisions, durably per the store's mode.</summary>
/// <remarks>Thread safety: called from the coordinator only, one round at a time.</remarks>
internal interface IUnitLog
{
    /// <summary>
    /// Records that every round of <paramref name="session"/> up to <paramref name="round"/> whose parts were written
    /// is committed. Completes when the record is as durable as the store's mode promises; fails when its outcome is
    /// uncertain.
    /// </summary>
    Task RecordAsync(Guid session, long round);
}
