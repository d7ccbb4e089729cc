namespace Stellar.Store.Samples.EventSourcedPlayers;

/// <summary>Event: the player earned <see cref="Amount"/> gold (a quest reward, loot sold).</summary>
public sealed record GoldEarned(int Amount);
