using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>The stores the game mix runs against, each filled with the players before the clock starts.</summary>
internal static class GameStores
{
    /// <summary>Every store: a factory from (directory, players) to an open, filled store.</summary>
    public static IEnumerable<Func<string, SmallRecord[], IGameStore>> All =>
    [
        (dir, players) => new StellarGame(dir, players, Durability.WriteThrough, perRecord: false),
        (dir, players) => new StellarGame(dir, players, Durability.WriteThrough, perRecord: true),
        (dir, players) => new StellarGame(dir, players, Durability.Fsync, perRecord: false),
        (dir, players) => new SqliteGame(dir, players, SqliteSync.Normal),
        (dir, players) => new SqliteGame(dir, players, SqliteSync.Full),
        (dir, players) => new LiteGame(dir, players),
        (dir, players) => new ZoneGame(dir, players),
    ];
}
