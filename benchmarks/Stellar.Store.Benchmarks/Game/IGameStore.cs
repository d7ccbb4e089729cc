using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>One store under the game-shaped mix: player upserts and top-N leaderboard queries.</summary>
internal interface IGameStore : IDisposable
{
    /// <summary>The row name, naming the durability mode.</summary>
    string Name { get; }

    /// <summary>Whether writes are asynchronous (run as tasks) rather than blocking (run on threads).</summary>
    bool IsAsync { get; }

    /// <summary>Stores (or replaces) one player.</summary>
    ValueTask UpsertAsync(SmallRecord player);

    /// <summary>The <paramref name="count"/> players with the highest scores.</summary>
    int Top(int count);
}
