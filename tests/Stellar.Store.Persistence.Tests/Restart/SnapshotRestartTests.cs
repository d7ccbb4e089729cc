using Akka.Actor;
using Akka.Persistence;
using MessagePack;

namespace Stellar.Store.Persistence.Tests.Restart;

/// <summary>
/// The snapshot store right after a restart, while its store is still opening: the first loads of recovering actors
/// arrive before the store is open, and each must still get its snapshot.
/// </summary>
public sealed class SnapshotRestartTests : IDisposable
{
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [Fact]
    public async Task Load_WhileTheStoreIsStillOpeningAfterARestart_GivesTheSnapshotSaved()
    {
        const string Player = "player-7";
        var saved = "gold 1200, sword, shield";
        using (var system = ActorSystem.Create("before", PluginTestConfig.For(_directory)))
        {
            var snapshots = Akka.Persistence.Persistence.Instance.Apply(system).SnapshotStoreFor(null);
            var reply = await snapshots.Ask(new SaveSnapshot(new SnapshotMetadata(Player, 10, DateTime.UtcNow), saved), TimeSpan.FromSeconds(30));
            Assert.IsType<SaveSnapshotSuccess>(reply);
            await system.Terminate();
        }

        // Enough records beside the snapshots that the next open takes a while: the loads below arrive meanwhile.
        await using (var store = await StellarStore.OpenAsync(_directory))
        {
            await store.GetCollection<int, Padding>("padding", p => p.Id).BulkImportAsync(Enumerable.Range(0, 300_000).Select(i => new Padding(i, i * 7L)));
        }

        using var restarted = ActorSystem.Create("after", PluginTestConfig.For(_directory));
        var store2 = Akka.Persistence.Persistence.Instance.Apply(restarted).SnapshotStoreFor(null);
        var loads = Enumerable.Range(0, 4).Select(_ => store2.Ask(new LoadSnapshot(Player, SnapshotSelectionCriteria.Latest, long.MaxValue), TimeSpan.FromSeconds(60))).ToArray();
        foreach (var load in loads)
        {
            var result = Assert.IsType<LoadSnapshotResult>(await load);
            Assert.Equal(saved, result.Snapshot?.Snapshot);
            Assert.Equal(10, result.Snapshot?.Metadata.SequenceNr);
        }

        await restarted.Terminate();
    }

    /// <summary>A record that only takes room.</summary>
    [MessagePackObject]
    public sealed record Padding([property: Key(0)] int Id, [property: Key(1)] long Value);
}
