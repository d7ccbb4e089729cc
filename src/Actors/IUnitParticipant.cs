using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>
/// One collection as a participant of cross-collection rounds: it turns the units of a round into its writer's part
/// (a write of the collection's own type, which the coordinator never sees) and carries the coordinator's commands
/// to its writer.
/// </summary>
/// <remarks>Thread safety: called from the coordinator only, one call at a time.</remarks>
internal interface IUnitParticipant
{
    /// <summary>
    /// Sends this collection's part of round <paramref name="round"/> of session <paramref name="session"/>, made of
    /// <paramref name="units"/> (each with its index in the round), to the writer as a
    /// <see cref="WriterProtocol.Prepare{TWrite}"/>. When the writer cannot take it (the store is closing), answers
    /// <see cref="UnitProtocol.PartRejected"/> to <paramref name="coordinator"/> itself.
    /// </summary>
    void Prepare(Guid session, long round, IReadOnlyList<(int Index, IUnitWrite Unit)> units, IActorRef coordinator, int participant);

    /// <summary>Sends a command of the round (<see cref="WriterProtocol.Go"/>, <see cref="WriterProtocol.Abort"/>, ...) to the writer.</summary>
    void Tell(object command);

    /// <summary>
    /// The units a rejection of this participant's part names, each with the exception its caller gets; null when
    /// the rejection is about the collection (faulted, closing) and so every unit of the part gets it. A unit named with a
    /// <see cref="RoundConflictException"/> was not rejected: it conflicts only with an earlier unit of the round.
    /// </summary>
    IReadOnlyList<(int Unit, Exception Cause)>? Rejections(Exception rejection);
}
