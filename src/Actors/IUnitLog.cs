namespace Stellar.Store.Actors;

/// <summary>Where <see cref="UnitCoordinator"/> records its decisions, durably per the store's mode.</summary>
/// <remarks>
/// Thread safety: called from the coordinator only, once per round; a round that failed does not wait for its
/// decision's outcome, so the next round's decision may be recorded while that one is still being written.
/// </remarks>
internal interface IUnitLog
{
    /// <summary>
    /// Records the decision of round <paramref name="round"/> of <paramref name="session"/>, whose parts' blocks are
    /// <paramref name="parts"/>: every earlier round of the session is committed, and this one is committed when each of
    /// those blocks is on disk. It is called once the parts reached the OS, while they are being made durable, so that
    /// the decision's fsync and the parts' run at once; recovery reads the blocks it names to tell whether the round's
    /// last step reached the disk everywhere. Completes when the record is as durable as the store's mode promises;
    /// fails when its outcome is uncertain.
    /// </summary>
    Task RecordAsync(Guid session, long round, IReadOnlyList<PartBlock> parts);
}
