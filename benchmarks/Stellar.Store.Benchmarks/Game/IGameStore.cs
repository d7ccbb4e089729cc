using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>One store under the game-shaped mix: each writer's updates of a tick, and top-N leaderboard queries.</summary>
internal interface IGameStore : IDisposable
{
    /// <summary>The row name, naming the durability mode.</summary>
    string Name { get; }

    /// <summary>What a completed tick write promises (a <see cref="Infrastructure.Pairing"/> value).</summary>
    string Pairing { get; }

    /// <summary>Whether writes are asynchronous (run as tasks) rather than blocking (run on threads).</summary>
    bool IsAsync { get; }

    /// <summary>
    /// Stores one writer's updates of one tick, the way a game server would with this store: one transaction (or
    /// batch) for the tick where the store has them. Completes when every update is as durable as <see cref="Pairing"/> says.
    /// </summary>
    ValueTask WriteTickAsync(IReadOnlyList<SmallRecord> updates);

    /// <summary>The <paramref name="count"/> players with the highest scores, materialized, for reader number <paramref name="reader"/>.</summary>
    IReadOnlyList<SmallRecord> Top(int reader, int count);
}
