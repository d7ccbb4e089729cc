using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// The persistent actor of the persistence benchmark: a player whose state is the events it has applied. Each
/// <see cref="PersistEvents"/> with one event per write persists them one at a time: the next <c>Persist</c> is
/// issued from the handler of the previous one, so every event waits for its own write, as an actor that handles
/// one command after another does. Journal failures and rejections are answered to the asker, not swallowed.
/// </summary>
public sealed class ScoringActor : ReceivePersistentActor
{
    private readonly int _player;
    private readonly List<Scored>? _replayed;
    private long _events;
    private long _points;
    private int _remaining;
    private int _perWrite;
    private IActorRef _replyTo = ActorRefs.Nobody;

    /// <summary>A player actor; <paramref name="keepReplayed"/> keeps the replayed events for <see cref="Recovered"/>.</summary>
    public ScoringActor(string persistenceId, int player, bool keepReplayed)
    {
        PersistenceId = persistenceId;
        _player = player;
        _replayed = keepReplayed ? [] : null;
        Recover<Scored>(e =>
        {
            Apply(e);
            _replayed?.Add(e);
        });
        Command<PersistEvents>(c =>
        {
            _remaining = c.Count;
            _perWrite = c.PerWrite;
            _replyTo = Sender;
            PersistNext();
        });
        Command<ReportRecovery>(_ => Sender.Tell(new Recovered(PersistenceId, _events, _points, LastSequenceNr, _replayed)));
    }

    /// <inheritdoc />
    public override string PersistenceId { get; }

    /// <summary>The props of a player actor.</summary>
    public static Props Props(string persistenceId, int player, bool keepReplayed = false) =>
        Akka.Actor.Props.Create(() => new ScoringActor(persistenceId, player, keepReplayed));

    /// <inheritdoc />
    protected override void OnPersistFailure(Exception cause, object @event, long sequenceNr)
    {
        _replyTo.Tell(new Status.Failure(new InvalidOperationException($"{PersistenceId}: persisting event {sequenceNr} failed.", cause)));
        base.OnPersistFailure(cause, @event, sequenceNr);
    }

    /// <inheritdoc />
    protected override void OnPersistRejected(Exception cause, object @event, long sequenceNr)
    {
        _replyTo.Tell(new Status.Failure(new InvalidOperationException($"{PersistenceId}: the journal rejected event {sequenceNr}.", cause)));
        base.OnPersistRejected(cause, @event, sequenceNr);
    }

    private void PersistNext()
    {
        if (_remaining == 0)
        {
            _replyTo.Tell(new EventsPersisted(PersistenceId, _events));
            return;
        }

        if (_perWrite == 1)
        {
            _remaining--;
            Persist(Next(0), e =>
            {
                Apply(e);
                PersistNext();
            });
            return;
        }

        var count = Math.Min(_perWrite, _remaining);
        _remaining -= count;
        var batch = Enumerable.Range(0, count).Select(Next).ToArray();
        PersistAll(batch, e =>
        {
            Apply(e);
            if (e.Sequence == batch[^1].Sequence)
            {
                PersistNext();
            }
        });
    }

    private Scored Next(int offset)
    {
        var sequence = _events + 1 + offset;
        return new Scored(_player, sequence, Scored.PointsOf(_player, sequence));
    }

    private void Apply(Scored e)
    {
        _events++;
        _points += e.Points;
    }
}
