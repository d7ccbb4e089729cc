namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>What a store write was for, to count writes by kind.</summary>
internal enum WriteKind
{
    Login,
    Position,
    Loot,
    Craft,
    Trade,
    Score,
    Chunk,
    Logout,
}
