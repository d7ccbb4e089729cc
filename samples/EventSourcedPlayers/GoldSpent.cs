namespace Stellar.Store.Samples.EventSourcedPlayers;

/// <summary>Event: the player spent <see cref="Amount"/> gold on <see cref="Item"/>.</summary>
public sealed record GoldSpent(int Amount, string Item);
