namespace Stellar.Store.Samples.EventSourcedPlayers;

/// <summary>Command: add <see cref="Amount"/> gold. Always accepted.</summary>
public sealed record EarnGold(int Amount);

/// <summary>Command: buy <see cref="Item"/> for <see cref="Amount"/> gold. Rejected, with no event, when the player has less.</summary>
public sealed record BuyItem(string Item, int Amount);

/// <summary>Command: reply with the player's <see cref="PlayerView"/>.</summary>
public sealed record GetPlayer;

/// <summary>Reply: the command's event is persisted (the journal acknowledged it) and applied; the state after it.</summary>
public sealed record Accepted(PlayerState State);

/// <summary>Reply: the command broke a rule; nothing was persisted.</summary>
public sealed record Rejected(string Reason);

/// <summary>
/// Reply to <see cref="GetPlayer"/>: the state, the sequence number of the snapshot the actor recovered from (0: none),
/// the events it replayed on top of that snapshot, and its last sequence number.
/// </summary>
public sealed record PlayerView(string PersistenceId, PlayerState State, long RecoveredFromSnapshotAt, int ReplayedEvents, long LastSequenceNr);
