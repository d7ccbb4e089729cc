// Adapted from Akka.Persistence.TCK (Snapshot/SnapshotStoreSaveSnapshotSpec.cs) of the Akka.NET project, Apache
// License 2.0: Copyright (C) 2009-2022 Lightbend Inc.; Copyright (C) 2013-2025 .NET Foundation.

using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>Persists ints, saves bursts of snapshots of its list, and reports the list it recovered.</summary>
internal sealed class SnapshottingActor : ReceivePersistentActor
{
    private List<int> _values = [];
    private IActorRef _sender = ActorRefs.Nobody;
    private int _snapshotCount;
    private int _savedSnapshotCount;

    public SnapshottingActor(string persistenceId)
    {
        PersistenceId = persistenceId;
        Recover<SnapshotOffer>(offer =>
        {
            if (offer.Snapshot is IEnumerable<int> ints)
            {
                _values = ints.ToList();
            }
        });
        Recover<int>(_values.Add);
        Command<int>(i =>
        {
            _sender = Sender;
            Persist(i, _ =>
            {
                _values.Add(i);
                _sender.Tell(Ack.Instance);
            });
        });
        Command<TakeSnapshotsWithValues>(msg =>
        {
            _sender = Sender;
            _snapshotCount = msg.Values.Length;
            _savedSnapshotCount = 0;
            foreach (var snapshot in msg.Values)
            {
                _values = snapshot.ToList();
                SaveSnapshot(_values);
            }
        });
        Command<GetAll>(_ => Sender.Tell(_values.ToArray()));
        Command<SaveSnapshotSuccess>(_ =>
        {
            if (++_savedSnapshotCount == _snapshotCount)
            {
                _sender.Tell(SnapshotAck.Instance);
            }
        });
    }

    public override string PersistenceId { get; }
}
