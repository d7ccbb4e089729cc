using System.Collections.Concurrent;
using Akka.Actor;
using Akka.Persistence;
using Akka.Persistence.Journal;
using Akka.Persistence.Query;
using Akka.Streams;
using Akka.Streams.Dsl;
using Stellar.Store.Persistence.Query;
using Stellar.Store.Tests.Support;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// The live queries by tag and of persistence ids, started before the journal's disk fills, across the reopen of the
/// faulted store once the player freed space: each must go on delivering every event (every id) once, in commit order,
/// without a restart. The oracle is the test's own list of the events in the order it wrote them (each write awaited
/// before the next), with the write that met the full disk in it only if the reopened store replays it.
/// </summary>
public sealed class LiveQueryDiskFullTests : IDisposable
{
    private const string Tag = "gold";
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [SkippableFact]
    public async Task LiveEventsByTagAndPersistenceIds_AcrossTheReopenAfterTheDiskFilled_DeliverEachEventAndIdOnceInOrder()
    {
        using var disk = SmallFileSystem.TryMount(Path.Combine(_directory, "disk"), 512 * 1024, out var reason);
        if (disk is null)
        {
            Skip.Because(reason);
        }

        using var system = ActorSystem.Create("live-queries-disk-full", PluginTestConfig.For(Path.Combine(disk.Path, "store")));
        try
        {
            var journal = Akka.Persistence.Persistence.Instance.Apply(system).JournalFor(null);
            var inbox = Inbox.Create(system);
            var queries = PersistenceQuery.Get(system).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
            var tagged = new ConcurrentQueue<EventEnvelope>();
            var ids = new ConcurrentQueue<string>();
            var byTag = queries.EventsByTag(Tag, NoOffset.Instance).RunForeach(tagged.Enqueue, system.Materializer());
            var byId = queries.PersistenceIds().RunForeach(ids.Enqueue, system.Materializer());

            // Two actors take turns until the disk is full.
            var written = new List<(string Pid, long SequenceNr, string Payload)>();
            var next = new Dictionary<string, long>(StringComparer.Ordinal) { ["a"] = 1, ["b"] = 1 };
            (string Pid, long SequenceNr, string Payload) failed;
            Exception? failure;
            while (true)
            {
                Assert.True(written.Count < 10_000, "a 512 KiB disk filled");
                var pid = written.Count % 2 == 0 ? "a" : "b";
                failed = (pid, next[pid], JournalWrites.Incompressible(32));
                failure = await WriteAsync(journal, inbox, failed);
                if (failure is not null)
                {
                    break;
                }

                written.Add(failed);
                next[pid]++;
            }

            Assert.IsType<StoreFaultedException>(failure);
            disk.Resize(64L * 1024 * 1024);
            if (await ReplaysAsync(journal, inbox, failed.Pid, failed.SequenceNr))
            {
                written.Add(failed);
                next[failed.Pid]++;
            }

            // After the reopen: both actors again, and a new one.
            foreach (var pid in new[] { "a", "c", "b" })
            {
                var item = (pid, next.GetValueOrDefault(pid, 1), JournalWrites.Incompressible(1));
                Assert.Null(await WriteAsync(journal, inbox, item));
                written.Add(item);
                next[pid] = item.Item2 + 1;
            }

            var deadline = DateTime.UtcNow + Wait;
            while ((tagged.Count < written.Count || ids.Count < 3) && !byTag.IsCompleted && !byId.IsCompleted && DateTime.UtcNow < deadline)
            {
                await Task.Delay(50);
            }

            Assert.False(byTag.IsCompleted, $"the live query by tag ended: {byTag.Exception?.GetBaseException().Message}");
            Assert.False(byId.IsCompleted, $"the live query of persistence ids ended: {byId.Exception?.GetBaseException().Message}");
            Assert.Equal(written, tagged.Select(e => (e.PersistenceId, e.SequenceNr, (string)e.Event)));
            var offsets = tagged.Select(e => ((Sequence)e.Offset).Value).ToList();
            Assert.Equal(offsets.Order().Distinct(), offsets);
            Assert.Equal(["a", "b", "c"], ids);

            // A query started now reads the same from the reopened store.
            var current = await queries.CurrentEventsByTag(Tag, NoOffset.Instance).RunWith(Sink.Seq<EventEnvelope>(), system.Materializer()).WaitAsync(Wait);
            Assert.Equal(written, current.Select(e => (e.PersistenceId, e.SequenceNr, (string)e.Event)));
        }
        finally
        {
            await system.Terminate();
        }
    }

    private static Task<Exception?> WriteAsync(IActorRef journal, Inbox inbox, (string Pid, long SequenceNr, string Payload) item) =>
        JournalWrites.WriteAsync(journal, inbox, item.Pid, item.SequenceNr, new Tagged(item.Payload, [Tag]));

    /// <summary>Whether the journal replays event <paramref name="sequenceNr"/> of <paramref name="persistenceId"/>.</summary>
    private static async Task<bool> ReplaysAsync(IActorRef journal, Inbox inbox, string persistenceId, long sequenceNr)
    {
        journal.Tell(new ReplayMessages(sequenceNr, sequenceNr, 1, persistenceId, inbox.Receiver));
        var replayed = false;
        while (true)
        {
            switch (await inbox.ReceiveAsync(Wait))
            {
                case ReplayedMessage:
                    replayed = true;
                    break;
                case RecoverySuccess:
                    return replayed;
                case var other:
                    throw new InvalidOperationException($"The journal answered a replay with {other}.");
            }
        }
    }
}
