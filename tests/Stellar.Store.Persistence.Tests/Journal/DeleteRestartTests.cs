using System.Collections.Immutable;
using Akka.Actor;
using Akka.Persistence;
using Akka.Persistence.Query;
using Akka.Streams;
using Akka.Streams.Dsl;
using Stellar.Store.Persistence.Query;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// Deletes larger than one batch of the journal's deletes, each followed by a restart of the actor system: replay and
/// the queries give exactly what was not deleted, and the highest sequence number stays. The oracle is the test's own
/// range of live sequence numbers.
/// </summary>
public sealed class DeleteRestartTests : IDisposable
{
    private const string Pid = "auction-house";
    private const int Count = 10_000;
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(60);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [Fact]
    public async Task DeleteMessagesTo_OverManyBatchesThenARestart_LeavesExactlyTheLaterEventsAndTheHighestNumber()
    {
        using (var system = ActorSystem.Create("delete-many", PluginTestConfig.For(_directory)))
        {
            // In calls of 500 events: an inbox keeps at most 1,000 replies.
            var inbox = Inbox.Create(system);
            foreach (var chunk in Enumerable.Range(1, Count).Chunk(500))
            {
                var writes = chunk
                    .Select(i => (IPersistentEnvelope)new AtomicWrite(ImmutableList.Create<IPersistentRepresentation>(
                        new Persistent($"bid-{i}", i, Pid, string.Empty, false, ActorRefs.NoSender, "writer"))))
                    .ToArray();
                Journal(system).Tell(new WriteMessages(writes, inbox.Receiver, 1));
                Assert.IsType<WriteMessagesSuccessful>(await inbox.ReceiveAsync(Wait));
                foreach (var _ in chunk)
                {
                    Assert.IsType<WriteMessageSuccess>(await inbox.ReceiveAsync(Wait));
                }
            }

            Journal(system).Tell(new DeleteMessagesTo(Pid, 9_000, inbox.Receiver));
            Assert.IsType<DeleteMessagesSuccess>(await inbox.ReceiveAsync(Wait));
            await system.Terminate();
        }

        using (var system = ActorSystem.Create("delete-many-after", PluginTestConfig.For(_directory)))
        {
            await AssertLiveAsync(system, 9_001, Count);
            var inbox = Inbox.Create(system);
            Journal(system).Tell(new DeleteMessagesTo(Pid, long.MaxValue, inbox.Receiver));
            Assert.IsType<DeleteMessagesSuccess>(await inbox.ReceiveAsync(Wait));
            await system.Terminate();
        }

        using (var system = ActorSystem.Create("delete-all-after", PluginTestConfig.For(_directory)))
        {
            await AssertLiveAsync(system, Count + 1, Count);
            var queries = PersistenceQuery.Get(system).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
            using var materializer = system.Materializer();
            Assert.Equal([Pid], await queries.CurrentPersistenceIds().RunWith(Sink.Seq<string>(), materializer).WaitAsync(Wait));
            await system.Terminate();
        }
    }

    private static IActorRef Journal(ActorSystem system) => Akka.Persistence.Persistence.Instance.Apply(system).JournalFor(null);

    /// <summary>Replay and <c>CurrentEventsByPersistenceId</c> give events <paramref name="first"/> to <paramref name="last"/>, and the highest number is <see cref="Count"/>.</summary>
    private static async Task AssertLiveAsync(ActorSystem system, long first, long last)
    {
        var expected = Enumerable.Range((int)first, (int)Math.Max(0, last - first + 1)).Select(i => $"bid-{i}").ToList();
        var inbox = Inbox.Create(system);
        Journal(system).Tell(new ReplayMessages(0, long.MaxValue, long.MaxValue, Pid, inbox.Receiver));
        var replayed = new List<string>();
        var reply = await inbox.ReceiveAsync(Wait);
        while (reply is ReplayedMessage message)
        {
            replayed.Add((string)message.Persistent.Payload);
            reply = await inbox.ReceiveAsync(Wait);
        }

        Assert.Equal(expected, replayed);
        Assert.Equal(Count, Assert.IsType<RecoverySuccess>(reply).HighestSequenceNr);

        var queries = PersistenceQuery.Get(system).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
        using var materializer = system.Materializer();
        var current = await queries.CurrentEventsByPersistenceId(Pid, 0, long.MaxValue).RunWith(Sink.Seq<EventEnvelope>(), materializer).WaitAsync(Wait);
        Assert.Equal(expected, current.Select(e => (string)e.Event));
    }
}
