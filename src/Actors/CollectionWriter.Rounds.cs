using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>The writer's part in cross-collection rounds: a part queued, held for the round, committed or dropped, published at the decision.</summary>
internal sealed partial class CollectionWriter<TWrite, TResult>
{
    private void OnPrepare(WriterProtocol.Prepare<TWrite> prepare)
    {
        if (_fault is not null || _closing is not null)
        {
            RejectPart(prepare, _fault is not null ? _sink.Fault(_fault) : new ObjectDisposedException("store", "The store is closing."));
            return;
        }

        Enqueue(prepare);
    }

    /// <summary>Tells the coordinator where the part went, as soon as it is known: its decision is recorded while the part is made durable.</summary>
    private static Action<IReadOnlyList<PartBlock>> PlacedCallback(WriterProtocol.Prepare<TWrite> part) =>
        blocks => part.Coordinator.Tell(new UnitProtocol.PartPlaced(part.Round, part.Participant, blocks));

    private void OnGo(WriterProtocol.Go go)
    {
        if (_held is not { } part || part.Round != go.Round)
        {
            return;
        }

        _held = null;
        if (_fault is not null)
        {
            // Faulted while the part was held: a faulted collection commits nothing more.
            part.Coordinator.Tell(new UnitProtocol.PartFailed(part.Round, part.Participant, _sink.Fault(_fault)));
            return;
        }

        _writing = part;
        if (CommitGroup())
        {
            StartGroup();
        }
    }

    private void OnAbort(WriterProtocol.Abort abort)
    {
        if (_held is not { } part || part.Round != abort.Round)
        {
            return;
        }

        _held = null;
        _busy = false;
        _sink.Unstage();
        StartGroup();
    }

    private void OnDecide(WriterProtocol.Decide decide)
    {
        if (_writing is not { } part || part.Round != decide.Round)
        {
            return;
        }

        if (decide.Failure is not null)
        {
            // The round may or may not commit at the next open: this collection cannot go on as if it knew.
            _writing = null;
            _busy = false;
            FailAll(new IOException($"A cross-collection write's outcome is uncertain: {decide.Failure.Message}", decide.Failure));
            RunPendingFlushes();
            return;
        }

        // Still the part being written while it is published: a publish that throws fails it to the coordinator (see Threw).
        _sink.PublishPart(part.Round);
        _writing = null;
        _parked = part;
        part.Coordinator.Tell(new UnitProtocol.PartPublished(part.Round, part.Participant));
    }

    private void OnResume(WriterProtocol.Resume resume)
    {
        if (_parked is not { } part || part.Round != resume.Round)
        {
            return;
        }

        _parked = null;
        _busy = false;
        _sink.EndPart();
        if (_queued.Count > 0 && _fault is null)
        {
            StartGroup();
        }
        else
        {
            RunPendingFlushes();
        }
    }

    private static void RejectPart(WriterProtocol.Prepare<TWrite> prepare, Exception rejection) =>
        prepare.Coordinator.Tell(new UnitProtocol.PartRejected(prepare.Round, prepare.Participant, rejection));
}
