using System.Collections.Immutable;
using Akka.Actor;
using Akka.Persistence;
using Stellar.Store.Tests.Support;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// The snapshot store on a full disk: at its first use, the snapshots' collection cannot be made while the disk is full,
/// and must be made once the player freed space; a save that met the full disk faults the store, which is reopened for
/// the saves, loads and deletes after it. Any call after a fault goes on once the cause is gone.
/// </summary>
public sealed class SnapshotStoreDiskFullTests : IDisposable
{
    private const string PersistenceId = "hero";
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [SkippableFact]
    public async Task SaveSnapshot_FirstTriedOnAFullDisk_SucceedsOnceTheDiskHasRoom()
    {
        using var disk = SmallFileSystem.MountOrSkip(Path.Combine(_directory, "disk"), 512 * 1024);

        using var system = ActorSystem.Create("snapshot-disk-full", PluginTestConfig.For(Path.Combine(disk.Path, "store")));
        try
        {
            var persistence = Akka.Persistence.Persistence.Instance.Apply(system);
            var journal = persistence.JournalFor(null);
            var snapshots = persistence.SnapshotStoreFor(null);
            var inbox = Inbox.Create(system);

            // The journal fills the disk.
            long sequenceNr = 0;
            object answer;
            do
            {
                Assert.True(sequenceNr < 10_000, "a 512 KiB disk filled");
                var payload = string.Concat(Enumerable.Range(0, 32).Select(_ => Guid.NewGuid().ToString("N")));
                var persistent = new Persistent(payload, ++sequenceNr, PersistenceId, string.Empty, false, ActorRefs.NoSender, "writer");
                journal.Tell(new WriteMessages([new AtomicWrite(ImmutableList.Create<IPersistentRepresentation>(persistent))], inbox.Receiver, 1));
                answer = await inbox.ReceiveAsync(Wait);
                await inbox.ReceiveAsync(Wait);
            }
            while (answer is WriteMessagesSuccessful);

            Assert.IsType<WriteMessagesFailed>(answer);
            var metadata = new SnapshotMetadata(PersistenceId, sequenceNr - 1, DateTime.UtcNow);
            snapshots.Tell(new SaveSnapshot(metadata, "while full"), inbox.Receiver);
            Assert.IsType<SaveSnapshotFailure>(await inbox.ReceiveAsync(Wait));

            disk.Resize(64L * 1024 * 1024);
            snapshots.Tell(new SaveSnapshot(metadata, "with room"), inbox.Receiver);
            var saved = await inbox.ReceiveAsync(Wait);
            Assert.True(saved is SaveSnapshotSuccess, $"the save after the disk had room answered {saved}");
            snapshots.Tell(new LoadSnapshot(PersistenceId, SnapshotSelectionCriteria.Latest, long.MaxValue), inbox.Receiver);
            var loaded = Assert.IsType<LoadSnapshotResult>(await inbox.ReceiveAsync(Wait));
            Assert.Equal("with room", loaded.Snapshot?.Snapshot);
        }
        finally
        {
            await system.Terminate();
        }
    }

    [SkippableFact]
    public async Task SaveSnapshot_AfterASaveFaultedTheStoreOnAFullDisk_SavesLoadsAndDeletesOnceTheDiskHasRoom()
    {
        using var disk = SmallFileSystem.MountOrSkip(Path.Combine(_directory, "disk"), 512 * 1024);

        using var system = ActorSystem.Create("snapshot-save-disk-full", PluginTestConfig.For(Path.Combine(disk.Path, "store")));
        try
        {
            var snapshots = Akka.Persistence.Persistence.Instance.Apply(system).SnapshotStoreFor(null);
            var inbox = Inbox.Create(system);

            // Snapshots fill the disk themselves.
            long sequenceNr = 0;
            object answer;
            do
            {
                Assert.True(sequenceNr < 10_000, "a 512 KiB disk filled");
                snapshots.Tell(new SaveSnapshot(new SnapshotMetadata(PersistenceId, ++sequenceNr, DateTime.UtcNow), JournalWrites.Incompressible(32)), inbox.Receiver);
                answer = await inbox.ReceiveAsync(Wait);
            }
            while (answer is SaveSnapshotSuccess);

            Assert.IsType<StoreFaultedException>(Assert.IsType<SaveSnapshotFailure>(answer).Cause);
            disk.Resize(64L * 1024 * 1024);
            var last = sequenceNr + 1;
            snapshots.Tell(new SaveSnapshot(new SnapshotMetadata(PersistenceId, last, DateTime.UtcNow), "with room"), inbox.Receiver);
            var saved = await inbox.ReceiveAsync(Wait);
            Assert.True(saved is SaveSnapshotSuccess, $"the save after the disk had room answered {saved}");
            snapshots.Tell(new LoadSnapshot(PersistenceId, SnapshotSelectionCriteria.Latest, long.MaxValue), inbox.Receiver);
            Assert.Equal("with room", Assert.IsType<LoadSnapshotResult>(await inbox.ReceiveAsync(Wait)).Snapshot?.Snapshot);

            // Every older snapshot, the one whose save failed included, can be deleted; the last stays.
            var older = new SnapshotSelectionCriteria(last - 1, DateTime.MaxValue);
            snapshots.Tell(new DeleteSnapshots(PersistenceId, older), inbox.Receiver);
            Assert.IsType<DeleteSnapshotsSuccess>(await inbox.ReceiveAsync(Wait));
            snapshots.Tell(new LoadSnapshot(PersistenceId, older, long.MaxValue), inbox.Receiver);
            Assert.Null(Assert.IsType<LoadSnapshotResult>(await inbox.ReceiveAsync(Wait)).Snapshot);
            snapshots.Tell(new LoadSnapshot(PersistenceId, SnapshotSelectionCriteria.Latest, long.MaxValue), inbox.Receiver);
            Assert.Equal("with room", Assert.IsType<LoadSnapshotResult>(await inbox.ReceiveAsync(Wait)).Snapshot?.Snapshot);
        }
        finally
        {
            await system.Terminate();
        }
    }
}
