using MessagePack;
using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Protocol;

/// <summary>
/// The messages between a client and the server. Every request carries a request id that its one reply echoes.
/// A reply to a request that changed gold, items, scores or chunks is sent only after the store acknowledged
/// the write (see the README): a client that got <see cref="Traded"/> knows the trade is stored.
/// </summary>
public static class GameProtocol
{
    /// <summary>A message on the wire (a MessagePack union, framed by <see cref="Framing"/>).</summary>
    /// <param name="RequestId">The request id, echoed by the reply.</param>
    [Union(0, typeof(Login))]
    [Union(1, typeof(Move))]
    [Union(2, typeof(Loot))]
    [Union(3, typeof(Craft))]
    [Union(4, typeof(Trade))]
    [Union(5, typeof(SubmitScore))]
    [Union(6, typeof(Explore))]
    [Union(7, typeof(TopScores))]
    [Union(8, typeof(Logout))]
    [Union(20, typeof(LoggedIn))]
    [Union(21, typeof(Done))]
    [Union(22, typeof(Looted))]
    [Union(23, typeof(Crafted))]
    [Union(24, typeof(Traded))]
    [Union(25, typeof(Explored))]
    [Union(26, typeof(Scores))]
    [Union(27, typeof(Refused))]
    public abstract record Message([property: Key(0)] int RequestId);

    /// <summary>Logs in to <paramref name="Account"/>, creating it and its character on first use.</summary>
    [MessagePackObject]
    public sealed record Login(int RequestId, [property: Key(1)] string Account) : Message(RequestId);

    /// <summary>Moves the character by a step. Positions are stored at most once a second per character.</summary>
    [MessagePackObject]
    public sealed record Move(int RequestId, [property: Key(1)] int Dx, [property: Key(2)] int Dy) : Message(RequestId);

    /// <summary>Loots: one new item and some gold.</summary>
    [MessagePackObject]
    public sealed record Loot(int RequestId) : Message(RequestId);

    /// <summary>Crafts: two items and a fee become one item of a higher tier.</summary>
    [MessagePackObject]
    public sealed record Craft(int RequestId) : Message(RequestId);

    /// <summary>Trades with another online character chosen by the server: pay <paramref name="Gold"/> and swap items.</summary>
    [MessagePackObject]
    public sealed record Trade(int RequestId, [property: Key(1)] long Gold) : Message(RequestId);

    /// <summary>Submits a score; the leaderboard keeps each character's best.</summary>
    [MessagePackObject]
    public sealed record SubmitScore(int RequestId, [property: Key(1)] long Score) : Message(RequestId);

    /// <summary>Explores the chunk under the character: creates it on first visit, digs into it after.</summary>
    [MessagePackObject]
    public sealed record Explore(int RequestId) : Message(RequestId);

    /// <summary>Asks for the leaderboard's top 100, read from a snapshot while writes go on.</summary>
    [MessagePackObject]
    public sealed record TopScores(int RequestId) : Message(RequestId);

    /// <summary>Logs out; the reply comes when the character's final state is stored.</summary>
    [MessagePackObject]
    public sealed record Logout(int RequestId) : Message(RequestId);

    /// <summary>Reply to <see cref="Login"/>.</summary>
    [MessagePackObject]
    public sealed record LoggedIn(int RequestId, [property: Key(1)] long CharacterId, [property: Key(2)] long Gold, [property: Key(3)] int Items, [property: Key(4)] bool Created)
        : Message(RequestId);

    /// <summary>Reply to a request that needs no more than "done".</summary>
    [MessagePackObject]
    public sealed record Done(int RequestId) : Message(RequestId);

    /// <summary>Reply to <see cref="Loot"/>.</summary>
    [MessagePackObject]
    public sealed record Looted(int RequestId, [property: Key(1)] long ItemId, [property: Key(2)] long Gold) : Message(RequestId);

    /// <summary>Reply to <see cref="Craft"/>.</summary>
    [MessagePackObject]
    public sealed record Crafted(int RequestId, [property: Key(1)] long ItemId, [property: Key(2)] int Tier) : Message(RequestId);

    /// <summary>Reply to <see cref="Trade"/>, sent once the trade is stored.</summary>
    [MessagePackObject]
    public sealed record Traded(int RequestId, [property: Key(1)] long TradeId, [property: Key(2)] long SellerId) : Message(RequestId);

    /// <summary>Reply to <see cref="Explore"/>.</summary>
    [MessagePackObject]
    public sealed record Explored(int RequestId, [property: Key(1)] long ChunkId, [property: Key(2)] int Version) : Message(RequestId);

    /// <summary>Reply to <see cref="TopScores"/>, best first.</summary>
    [MessagePackObject]
    public sealed record Scores(int RequestId, [property: Key(1)] IReadOnlyList<ScoreRecord> Top) : Message(RequestId);

    /// <summary>A request that could not be done (nothing changed).</summary>
    [MessagePackObject]
    public sealed record Refused(int RequestId, [property: Key(1)] string Reason) : Message(RequestId);
}
