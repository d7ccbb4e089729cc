using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Samples.EventSourcedPlayers;

/// <summary>
/// One player, event-sourced: a command is checked against the state, becomes an event, and the event is persisted
/// before it is applied and the sender hears <see cref="Accepted"/>, so an acknowledged command survives a restart
/// (as far as the journal's durability mode promises). Every <c>snapshotEvery</c> events the actor saves its state as
/// a snapshot, so a recovery loads the latest snapshot and replays only the events after it.
/// </summary>
public sealed class PlayerActor : ReceivePersistentActor
{
    private readonly int _snapshotEvery;
    private PlayerState _state = PlayerState.Empty;
    private long _recoveredFromSnapshotAt;
    private int _replayed;

    /// <summary>The player <paramref name="playerId"/>, snapshotting every <paramref name="snapshotEvery"/> events.</summary>
    public PlayerActor(string playerId, int snapshotEvery)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(snapshotEvery, 1);
        PersistenceId = $"player-{playerId}";
        _snapshotEvery = snapshotEvery;

        Recover<SnapshotOffer>(offer =>
        {
            _state = (PlayerState)offer.Snapshot;
            _recoveredFromSnapshotAt = offer.Metadata.SequenceNr;
        });
        Recover<GoldEarned>(e => Replay(e));
        Recover<GoldSpent>(e => Replay(e));

        Command<EarnGold>(c => c.Amount > 0, c => PersistThenReply(new GoldEarned(c.Amount)));
        Command<EarnGold>(_ => Sender.Tell(new Rejected("An amount earned must be positive.")));
        Command<BuyItem>(c => c.Amount > 0 && c.Amount <= _state.Gold, c => PersistThenReply(new GoldSpent(c.Amount, c.Item)));
        Command<BuyItem>(c => Sender.Tell(new Rejected($"{c.Item} costs {c.Amount} gold; the player has {_state.Gold}.")));
        Command<GetPlayer>(_ => Sender.Tell(new PlayerView(PersistenceId, _state, _recoveredFromSnapshotAt, _replayed, LastSequenceNr)));
        Command<SaveSnapshotSuccess>(s => DeleteSnapshots(new SnapshotSelectionCriteria(s.Metadata.SequenceNr - 1)));
        Command<SaveSnapshotFailure>(_ => { });
        Command<DeleteSnapshotsSuccess>(_ => { });
        Command<DeleteSnapshotsFailure>(_ => { });
    }

    /// <inheritdoc />
    public override string PersistenceId { get; }

    /// <summary>The props of player <paramref name="playerId"/>.</summary>
    public static Props Props(string playerId, int snapshotEvery) => Akka.Actor.Props.Create(() => new PlayerActor(playerId, snapshotEvery));

    private void Replay(object @event)
    {
        _state = _state.Apply(@event);
        _replayed++;
    }

    private void PersistThenReply<TEvent>(TEvent @event)
        where TEvent : class
    {
        Persist(@event, e =>
        {
            _state = _state.Apply(e);
            Sender.Tell(new Accepted(_state));
            if (LastSequenceNr % _snapshotEvery == 0)
            {
                // The snapshot holds the state after event LastSequenceNr; older snapshots are deleted once it is saved.
                SaveSnapshot(_state);
            }
        });
    }
}
