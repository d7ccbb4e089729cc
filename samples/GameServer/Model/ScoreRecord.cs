using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>A character's best score (collection <c>leaderboard</c>, keyed by character id).</summary>
/// <param name="CharacterId">Whose score.</param>
/// <param name="Name">The character's name, for display.</param>
/// <param name="Score">The best score submitted.</param>
[MessagePackObject]
public sealed record ScoreRecord(
    [property: Key(0)] long CharacterId,
    [property: Key(1)] string Name,
    [property: Key(2)] long Score);
