using Akka.Actor;
using Akka.Configuration;
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

    /// <summary>Starts a world on the store in <paramref name="directory"/> (created if missing).</summary>
    public static PlayerWorld Start(string directory, string durability, int snapshotEvery) =>
        new(ActorSystem.Create("players", Configuration(directory, durability)), snapshotEvery);

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

    /// <inheritdoc />
    public async ValueTask DisposeAsync() => await System.Terminate().ConfigureAwait(false);
}
