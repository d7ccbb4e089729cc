using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>A login account (collection <c>accounts</c>, keyed by name).</summary>
/// <param name="Name">The account name.</param>
/// <param name="CharacterId">The account's character.</param>
/// <param name="Logins">How many times it logged in.</param>
/// <param name="LastLoginUtc">When it last logged in.</param>
[MessagePackObject]
public sealed record AccountRecord(
    [property: Key(0)] string Name,
    [property: Key(1)] long CharacterId,
    [property: Key(2)] int Logins,
    [property: Key(3)] DateTime LastLoginUtc);
