namespace Stellar.Store.Samples.EventSourcedPlayers;

/// <summary>One command sent to a player and the reply it got (<see cref="Accepted"/> or <see cref="Rejected"/>).</summary>
public sealed record CommandOutcome(string PlayerId, object Command, object Reply);
