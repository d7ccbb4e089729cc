using Akka.Actor;
using Akka.Configuration;
using Akka.Persistence;
using Stellar.Store.Persistence;

namespace Stellar.Store.Samples.EventSourcedPlayers;

/// <summary>
/// An actor system whose persistent actors keep their events and snapshots in one Stellar store: the journal and
/// the snapshot store configured by HOCON on the same directory. Disposing it terminates the system; its
/// coordinated shutdown stops the plugins, which close the store, so a new world can open the same directory.
/// Not thread-safe: one caller starts players and disposes the world.
/// </summary>
public sealed class PlayerWorld : IAsyncDisposable
{
    private readonly Dictionary<string, IActorRef> _players = new(StringComparer.Ordinal);
    private readonly int _snapshotEvery;

    private PlayerWorld(ActorSystem system, int snapshotEvery)
    {
        System = system;
        _snapshotEvery = snapshotEvery;
    }

    /// <summary>The actor system.</summary>
    public ActorSystem System { get; }

    /// <summary>
    /// The HOCON of the world: <c>durability</c> is <c>buffered</c>, <c>write-through</c> (an acknowledged event
    /// survives a crash of the process) or <c>fsync</c> (it survives a crash of the machine).
    /// </summary>
    public static Config Configuration(string directory, string durability)
    {
        var path = Path.GetFullPath(directory).Replace("\\", "/", StringComparison.Ordinal);
        return ConfigurationFactory.ParseString($$"""
            akka.loglevel = WARNING
            akka.persistence.journal.plugin = "akka.persistence.journal.stellar"
            akka.persistence.journal.stellar { path = "{{path}}", durability = {{durability}} }
            akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.stellar"
            akka.persistence.snapshot-store.stellar { path = "{{path}}", durability = {{durability}} }
            """).WithFallback(StellarPersistence.DefaultConfiguration());
    }

    /// <summary>
    /// Starts a world on the store in <paramref name="directory"/> (created if missing); completes once its snapshot
    /// store has opened the store.
    /// </summary>
    public static async Task<PlayerWorld> StartAsync(string directory, string durability, int snapshotEvery)
    {
        var system = ActorSystem.Create("players", Configuration(directory, durability));
        try
        {
            await SnapshotStoreOpenAsync(system).ConfigureAwait(false);
            return new PlayerWorld(system, snapshotEvery);
        }
        catch
        {
            await system.Terminate().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>The actor of player <paramref name="id"/>, started (and so recovered) on first use.</summary>
    public IActorRef Player(string id)
    {
        if (!_players.TryGetValue(id, out var player))
        {
            player = System.ActorOf(PlayerActor.Props(id, _snapshotEvery), $"player-{id}");
            _players.Add(id, player);
        }

        return player;
    }

    /// <summary>
    /// Waits until the snapshot store answers a load, which it does once it has opened the store: a world that has
    /// started is ready to recover its players.
    /// </summary>
    private static async Task SnapshotStoreOpenAsync(ActorSystem system)
    {
        var snapshots = Akka.Persistence.Persistence.Instance.Apply(system).SnapshotStoreFor(null);
        var reply = await snapshots.Ask<object>(new LoadSnapshot("world-start", SnapshotSelectionCriteria.Latest, long.MaxValue), TimeSpan.FromSeconds(30)).ConfigureAwait(false);
        if (reply is not LoadSnapshotResult)
        {
            throw new InvalidOperationException($"The snapshot store did not answer a load: {reply}.");
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync() => await System.Terminate().ConfigureAwait(false);
}
