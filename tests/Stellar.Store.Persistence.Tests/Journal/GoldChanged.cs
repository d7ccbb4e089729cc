namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>An event of a game's own type, serialized by Akka's default serializer.</summary>
public sealed record GoldChanged(string Player, int Delta);
