using System.Collections.Concurrent;
using Akka;
using Akka.Actor;
using Akka.Persistence;
using Akka.Persistence.Journal;
using Akka.Persistence.Query;
using Akka.Streams;
using Akka.Streams.Dsl;
using Akka.Util;
using Stellar.Store.Persistence.Query;
using Stellar.Store.Tests.Support;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// The read journal's queries, started before the journal's disk fills, across the reopen of the faulted store once the
/// player freed space: waiting for new events or still reading stored ones for a slow consumer, each must go on
/// delivering every event (every id) once, in commit order, without a restart. The oracle is the test's own list of the
/// events in the order it wrote them (each write awaited before the next), with the write that met the full disk in it
/// only if the reopened store replays it.
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
        using var disk = SmallFileSystem.MountOrSkip(Path.Combine(_directory, "disk"), 512 * 1024);

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

    [SkippableFact]
    public async Task Queries_ReadingStoredEventsWhenTheStoreIsReopened_ReadOnFromTheReopenedStore()
    {
        using var disk = SmallFileSystem.MountOrSkip(Path.Combine(_directory, "disk"), 512 * 1024);

        var config = PluginTestConfig.For(Path.Combine(disk.Path, "store"), extra: "akka.persistence.query.journal.stellar.max-buffer-size = 1");
        using var system = ActorSystem.Create("queries-catching-up-disk-full", config);
        try
        {
            var journal = Akka.Persistence.Persistence.Instance.Apply(system).JournalFor(null);
            var inbox = Inbox.Create(system);
            var queries = PersistenceQuery.Get(system).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
            var written = new List<(string, long, string)>();
            for (var sequenceNr = 1L; sequenceNr <= 20; sequenceNr++)
            {
                var item = ("hero", sequenceNr, $"event {sequenceNr}");
                Assert.Null(await WriteAsync(journal, inbox, item));
                written.Add(item);
            }

            // Slow consumers: each query has delivered one stored event and waits for demand in the middle of the others.
            var materializer = system.Materializer();
            var consumers = new (string Name, bool Live, Source<EventEnvelope, NotUsed> Query)[]
            {
                ("live by tag", true, queries.EventsByTag(Tag, NoOffset.Instance)),
                ("current by tag", false, queries.CurrentEventsByTag(Tag, NoOffset.Instance)),
                ("live by persistence id", true, queries.EventsByPersistenceId("hero", 0, long.MaxValue)),
                ("current by persistence id", false, queries.CurrentEventsByPersistenceId("hero", 0, long.MaxValue)),
            }.Select(c => (c.Name, c.Live, Queue: c.Query.RunWith(Sink.Queue<EventEnvelope>().WithAttributes(Attributes.CreateInputBuffer(1, 1)), materializer))).ToList();
            var received = consumers.ToDictionary(c => c.Name, _ => new List<(string, long, string)>());
            foreach (var consumer in consumers)
            {
                await PullAsync(consumer.Name, consumer.Queue, received[consumer.Name]);
            }

            // Another actor, untagged, fills the disk: the store faults and is reopened while the queries wait.
            var filler = 0L;
            while (await JournalWrites.WriteAsync(journal, inbox, "filler", filler + 1, JournalWrites.Incompressible(32)) is null)
            {
                Assert.True(++filler < 10_000, "a 512 KiB disk filled");
            }

            disk.Resize(64L * 1024 * 1024);
            var late = ("hero", 21L, "after the reopen");
            Assert.Null(await WriteAsync(journal, inbox, late));

            // The current queries deliver what was stored when they started, the live ones the later event too.
            foreach (var (name, live, queue) in consumers)
            {
                var expected = live ? [.. written, late] : written;
                while (received[name].Count < expected.Count)
                {
                    await PullAsync(name, queue, received[name]);
                }

                Assert.Equal(expected, received[name]);
                if (!live)
                {
                    Assert.False((await queue.PullAsync().WaitAsync(Wait)).HasValue, $"the {name} query completes");
                }
            }
        }
        finally
        {
            await system.Terminate();
        }
    }

    /// <summary>Takes the next event of <paramref name="queue"/> into <paramref name="received"/>; fails naming the query when it ended or failed instead.</summary>
    private static async Task PullAsync(string name, ISinkQueue<EventEnvelope> queue, List<(string, long, string)> received)
    {
        Option<EventEnvelope> next;
        try
        {
            next = await queue.PullAsync().WaitAsync(Wait);
        }
        catch (Exception e)
        {
            throw new InvalidOperationException($"The {name} query failed after {received.Count} events: {e.GetBaseException().Message}", e);
        }

        Assert.True(next.HasValue, $"the {name} query completed after {received.Count} events");
        received.Add((next.Value.PersistenceId, next.Value.SequenceNr, (string)next.Value.Event));
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
