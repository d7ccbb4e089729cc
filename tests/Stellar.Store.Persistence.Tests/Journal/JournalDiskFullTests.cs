using System.Collections.Concurrent;
using Akka.Actor;
using Akka.Persistence;
using Akka.Persistence.Query;
using Akka.Streams;
using Stellar.Store.Persistence.Query;
using Stellar.Store.Tests.Support;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// A real full disk under the journal: the store on a small tmpfs, written until the device is out of space, then given
/// room, as a player frees disk space while the server runs. The store faults at the full disk (it refuses every write
/// until it is reopened); the plugins reopen it, so persistent actors and live queries go on without a restart of the
/// process.
/// </summary>
public sealed class JournalDiskFullTests : IDisposable
{
    private const string PersistenceId = "hero";
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [SkippableFact]
    public async Task Journal_AfterTheDiskFilledAndSpaceWasFreed_ReopensTheStoreAndKeepsEveryAcknowledgedEvent()
    {
        using var disk = SmallFileSystem.MountOrSkip(Path.Combine(_directory, "disk"), 1024 * 1024);

        var path = Path.Combine(disk.Path, "store");
        var written = new List<string>();
        long acknowledged;
        using (var system = ActorSystem.Create("disk-full", PluginTestConfig.For(path)))
        {
            var persistence = Akka.Persistence.Persistence.Instance.Apply(system);
            var journal = persistence.JournalFor(null);
            var inbox = Inbox.Create(system);
            var live = new ConcurrentQueue<EventEnvelope>();
            var query = PersistenceQuery.Get(system).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier)
                .EventsByPersistenceId(PersistenceId, 0, long.MaxValue)
                .RunForeach(live.Enqueue, system.Materializer());

            // Events of random text (which compression cannot shrink much) until one fails.
            Exception? failure = null;
            while (failure is null)
            {
                Assert.True(written.Count < 10_000, "a 1 MiB disk filled");
                var payload = JournalWrites.Incompressible(64);
                written.Add(payload);
                failure = await JournalWrites.WriteAsync(journal, inbox, PersistenceId, written.Count, payload);
            }

            acknowledged = written.Count - 1;
            Assert.True(acknowledged > 0, "some events were stored before the disk filled");
            Assert.IsType<StoreFaultedException>(failure);

            // The player frees space; the persistent actor restarts (its supervisor's backoff), recovers and persists.
            disk.Resize(64L * 1024 * 1024);
            var highest = await ReplayAsync(journal, inbox, written);
            Assert.InRange(highest, acknowledged, written.Count);
            written.RemoveRange((int)highest, written.Count - (int)highest);

            var next = "after the disk had room again";
            written.Add(next);
            Assert.Null(await JournalWrites.WriteAsync(journal, inbox, PersistenceId, written.Count, next));

            // The live query started before the disk filled follows the reopened store: every event once, in order.
            var deadline = DateTime.UtcNow + Wait;
            while (live.Count < written.Count && !query.IsCompleted && DateTime.UtcNow < deadline)
            {
                await Task.Delay(50);
            }

            Assert.False(query.IsCompleted, $"the live query ended: {query.Exception?.GetBaseException().Message}");
            Assert.Equal(written, live.Select(e => (string)e.Event));
            Assert.Equal(Enumerable.Range(1, written.Count).Select(n => (long)n), live.Select(e => e.SequenceNr));

            persistence.SnapshotStoreFor(null).Tell(new SaveSnapshot(new SnapshotMetadata(PersistenceId, written.Count, DateTime.UtcNow), "state"), inbox.Receiver);
            Assert.IsType<SaveSnapshotSuccess>(await inbox.ReceiveAsync(Wait));
            await system.Terminate();
        }

        // A restart of the server finds every event the journal acknowledged, before the fault and after it.
        using (var system = ActorSystem.Create("disk-full-restart", PluginTestConfig.For(path)))
        {
            var journal = Akka.Persistence.Persistence.Instance.Apply(system).JournalFor(null);
            Assert.Equal(written.Count, await ReplayAsync(journal, Inbox.Create(system), written));
            await system.Terminate();
        }
    }

    /// <summary>
    /// Replays the events as a recovering actor does; asserts that they are the first of <paramref name="written"/>, in
    /// order and without gaps, and returns the highest sequence number the journal reports.
    /// </summary>
    private static async Task<long> ReplayAsync(IActorRef journal, Inbox inbox, IReadOnlyList<string> written)
    {
        journal.Tell(new ReplayMessages(1, long.MaxValue, long.MaxValue, PersistenceId, inbox.Receiver));
        var replayed = new List<IPersistentRepresentation>();
        while (true)
        {
            switch (await inbox.ReceiveAsync(Wait))
            {
                case ReplayedMessage message:
                    replayed.Add(message.Persistent);
                    break;
                case RecoverySuccess success:
                    Assert.Equal(success.HighestSequenceNr, replayed.Count);
                    for (var i = 0; i < replayed.Count; i++)
                    {
                        Assert.Equal(i + 1, replayed[i].SequenceNr);
                        Assert.Equal(written[i], replayed[i].Payload);
                    }

                    return success.HighestSequenceNr;
                case var other:
                    throw new InvalidOperationException($"The journal answered a replay with {other}.");
            }
        }
    }
}
