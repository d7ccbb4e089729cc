namespace Stellar.Store.Actors;

/// <summary>
/// One atomic write across collections, as <see cref="UnitCoordinator"/> sees it: the collections it touches, and
/// the caller to tell the outcome. What it writes in each collection only the participants know.
/// </summary>
/// <remarks>Thread safety: <see cref="Complete"/> is called once, from the coordinator.</remarks>
internal interface IUnitWrite
{
    /// <summary>The collections the unit writes to, each once.</summary>
    IReadOnlyList<IUnitParticipant> Participants { get; }

    /// <summary>
    /// Reports the outcome: null when the unit is durable and visible in every collection; else a rejection (nothing
    /// stored) or a fault (outcome uncertain).
    /// </summary>
    void Complete(Exception? failure);
}
