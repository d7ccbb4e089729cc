using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// Snapshots larger than the store's large-value threshold, kept out of memory, across restarts: a load by criteria
/// gives the newest one selected, with its bytes, and a delete by criteria stays deleted. The oracle is the test's own
/// map of sequence number to snapshot.
/// </summary>
public sealed class SnapshotRestartLargeTests : IDisposable
{
    private const string Pid = "world-map";
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [Fact]
    public async Task Load_OfLargeSnapshotsAfterRestartsAndADelete_GivesTheNewestSelectedWithItsBytes()
    {
        var saved = new SortedDictionary<long, byte[]>();
        foreach (var sequenceNr in new long[] { 5, 127, 128, 255, 256, 70_000 })
        {
            saved[sequenceNr] = Enumerable.Range(0, 40_000).Select(i => (byte)((i * 31) + sequenceNr)).ToArray();
        }

        using (var system = ActorSystem.Create("large-save", PluginTestConfig.For(_directory)))
        {
            var inbox = Inbox.Create(system);
            foreach (var (sequenceNr, bytes) in saved)
            {
                Store(system).Tell(new SaveSnapshot(new SnapshotMetadata(Pid, sequenceNr, DateTime.UtcNow), bytes), inbox.Receiver);
                Assert.IsType<SaveSnapshotSuccess>(await inbox.ReceiveAsync(Wait));
            }

            await system.Terminate();
        }

        using (var system = ActorSystem.Create("large-delete", PluginTestConfig.For(_directory)))
        {
            await AssertLoadsAsync(system, long.MaxValue, saved);
            await AssertLoadsAsync(system, 255, saved);
            await AssertLoadsAsync(system, 200, saved);
            var inbox = Inbox.Create(system);
            Store(system).Tell(new DeleteSnapshots(Pid, new SnapshotSelectionCriteria(70_000, DateTime.MaxValue, 128)), inbox.Receiver);
            Assert.IsType<DeleteSnapshotsSuccess>(await inbox.ReceiveAsync(Wait));
            foreach (var sequenceNr in saved.Keys.Where(s => s >= 128).ToList())
            {
                saved.Remove(sequenceNr);
            }

            await AssertLoadsAsync(system, long.MaxValue, saved);
            await system.Terminate();
        }

        using (var system = ActorSystem.Create("large-load", PluginTestConfig.For(_directory)))
        {
            await AssertLoadsAsync(system, long.MaxValue, saved);
            await system.Terminate();
        }
    }

    private static IActorRef Store(ActorSystem system) => Akka.Persistence.Persistence.Instance.Apply(system).SnapshotStoreFor(null);

    private static async Task AssertLoadsAsync(ActorSystem system, long maxSequenceNr, SortedDictionary<long, byte[]> saved)
    {
        var inbox = Inbox.Create(system);
        Store(system).Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(maxSequenceNr), long.MaxValue), inbox.Receiver);
        var result = Assert.IsType<LoadSnapshotResult>(await inbox.ReceiveAsync(Wait));
        var expected = saved.Where(p => p.Key <= maxSequenceNr).Select(p => (long?)p.Key).LastOrDefault();
        Assert.Equal(expected, result.Snapshot?.Metadata.SequenceNr);
        if (expected is { } sequenceNr)
        {
            Assert.Equal(saved[sequenceNr], (byte[])result.Snapshot!.Snapshot);
        }
    }
}
