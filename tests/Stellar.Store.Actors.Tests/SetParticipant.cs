using Akka.Actor;

namespace Stellar.Store.Actors.Tests;

/// <summary>A collection of <see cref="PartSink"/> as a participant of rounds, behind the real writer.</summary>
internal sealed class SetParticipant(WriterHandle<SetWrite, int> writer) : IUnitParticipant
{
    public WriterHandle<SetWrite, int> Writer { get; } = writer;

    /// <summary>Throws from <see cref="Prepare"/>, on the coordinator's turn, as a bug there would.</summary>
    public bool PrepareThrows { get; set; }

    public void Prepare(Guid session, long round, IReadOnlyList<(int Index, IUnitWrite Unit)> units, IActorRef coordinator, int participant)
    {
        if (PrepareThrows)
        {
            throw new InvalidOperationException("prepare threw");
        }

        var part = new SetWrite(0, round, units.Select(u => (u.Index, ((SetUnit)u.Unit).KeysFor(this))).ToList());
        if (!Writer.TrySend(new WriterProtocol.Prepare<SetWrite>(part, 1, coordinator, round, participant)))
        {
            coordinator.Tell(new UnitProtocol.PartRejected(round, participant, new ObjectDisposedException("writer")));
        }
    }

    public void Tell(object command) => Writer.Command(command);

    public IReadOnlyList<(int Unit, Exception Cause)>? Rejections(Exception rejection) => (rejection as UnitsRejected)?.Units;
}
