namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>What a store write was for, to count writes by kind.</summary>
internal enum WriteKind
{
    Login,

    /// <summary>A session's lease, written once the login is stored and renewed while the player stays (its delete is part of the logout).</summary>
    Session,
    Position,
    Loot,
    Craft,
    Trade,
    Score,
    Chunk,
    Logout,
}
