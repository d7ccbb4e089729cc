using Akka.Actor;
using Stellar.Store.Actors;
using Stellar.Store.Engine;
using Stellar.Store.Format;

namespace Stellar.Store.Units;

/// <summary>A collection as a participant of cross-collection rounds: builds its typed part and talks to its writer.</summary>
/// <remarks>Thread safety: called from the coordinator only.</remarks>
internal sealed class UnitParticipant<TKey, TValue> : IUnitParticipant
    where TKey : notnull
{
    private readonly WriterHandle<CollectionWrite<TKey, TValue>, bool> _writer;

    public UnitParticipant(WriterHandle<CollectionWrite<TKey, TValue>, bool> writer) => _writer = writer;

    public void Prepare(Guid session, long round, IReadOnlyList<(int Index, IUnitWrite Unit)> units, IActorRef coordinator, int participant)
    {
        var writes = units.Select(u => (u.Index, ((StoreUnit)u.Unit).WritesFor<TKey, TValue>(this))).ToList();
        var part = new UnitPartWrite<TKey, TValue>(new UnitTag(session, (ulong)round), writes);
        if (!_writer.TrySend(new WriterProtocol.Prepare<CollectionWrite<TKey, TValue>>(part, part.Bytes, coordinator, round, participant)))
        {
            coordinator.Tell(new UnitProtocol.PartRejected(round, participant, new ObjectDisposedException("store", "The store is closing.")));
        }
    }

    public void Tell(object command) => _writer.Command(command);

    public IReadOnlyList<(int Unit, Exception Cause)>? Rejections(Exception rejection) =>
        (rejection as PartRejectedException)?.Rejections;
}
