using System.Collections.Immutable;
using Akka.Actor;
using Akka.Persistence;
using Akka.Persistence.Journal;
using Akka.Persistence.Query;
using Akka.Streams;
using Akka.Streams.Dsl;
using Stellar.Store.Persistence.Query;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// A consumer of <c>EventsByTag</c> that keeps its last offset and resumes after a restart of the actor system: it must
/// get every event committed after that offset once, in commit order, whatever was deleted or written in between. The
/// oracle is the test's own list of the events in the order it wrote them (each write awaited before the next).
/// </summary>
public sealed class QueryResumeTests : IDisposable
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [Fact]
    public async Task CurrentEventsByTag_ResumedAfterARestart_GivesEveryLaterEventOnceInOrder()
    {
        var big = new string('g', 100_000);
        var committed = new List<(string Pid, string Payload)>();
        long resumeAfter;
        long lastSeen;
        using (var system = ActorSystem.Create("resume-before", PluginTestConfig.For(_directory)))
        {
            await WriteTaggedAsync(system, "guild/α", 1, ["a1", "a2", big, "a4", "a5"], committed);
            await WriteTaggedAsync(system, "guild/β", 1, ["b1", "b2", "b3"], committed);
            var seen = await CurrentByTagAsync(system, NoOffset.Instance);
            Assert.Equal(committed.Select(c => (c.Pid, c.Payload)), seen.Select(e => (e.PersistenceId, (string)e.Event)));
            resumeAfter = ((Sequence)seen[3].Offset).Value;
            lastSeen = ((Sequence)seen[^1].Offset).Value;

            // The id that wrote last deletes every event: the orderings it held must not be handed out again.
            var inbox = Inbox.Create(system);
            Journal(system).Tell(new DeleteMessagesTo("guild/β", long.MaxValue, inbox.Receiver));
            Assert.IsType<DeleteMessagesSuccess>(await inbox.ReceiveAsync(Wait));
            committed.RemoveAll(c => c.Pid == "guild/β");
            await system.Terminate();
        }

        using var restarted = ActorSystem.Create("resume-after", PluginTestConfig.For(_directory));
        await WriteTaggedAsync(restarted, "guild/γ", 1, ["c1", "c2"], committed);
        var resumed = await CurrentByTagAsync(restarted, new Sequence(resumeAfter));
        Assert.Equal(committed.Skip(4).Select(c => (c.Pid, c.Payload)), resumed.Select(e => (e.PersistenceId, (string)e.Event)));
        var offsets = resumed.Select(e => ((Sequence)e.Offset).Value).ToList();
        Assert.Equal(offsets.Order(), offsets);
        Assert.Equal(offsets.Count, offsets.Distinct().Count());
        Assert.All(resumed.Where(e => e.PersistenceId == "guild/γ"), e => Assert.True(((Sequence)e.Offset).Value > lastSeen));
        await restarted.Terminate();
    }

    private static IActorRef Journal(ActorSystem system) => Akka.Persistence.Persistence.Instance.Apply(system).JournalFor(null);

    private static async Task<IReadOnlyList<EventEnvelope>> CurrentByTagAsync(ActorSystem system, Offset offset)
    {
        var queries = PersistenceQuery.Get(system).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
        using var materializer = system.Materializer();
        return await queries.CurrentEventsByTag("guild", offset).RunWith(Sink.Seq<EventEnvelope>(), materializer).WaitAsync(Wait);
    }

    /// <summary>Writes each payload as its own AtomicWrite, tagged "guild", one after another; adds each acknowledged one to <paramref name="committed"/>.</summary>
    private static async Task WriteTaggedAsync(ActorSystem system, string pid, long from, string[] payloads, List<(string, string)> committed)
    {
        var inbox = Inbox.Create(system);
        for (var i = 0; i < payloads.Length; i++)
        {
            var persistent = new Persistent(new Tagged(payloads[i], ["guild"]), from + i, pid, string.Empty, false, ActorRefs.NoSender, "writer");
            Journal(system).Tell(new WriteMessages([new AtomicWrite(ImmutableList.Create<IPersistentRepresentation>(persistent))], inbox.Receiver, 1));
            Assert.IsType<WriteMessagesSuccessful>(await inbox.ReceiveAsync(Wait));
            Assert.IsType<WriteMessageSuccess>(await inbox.ReceiveAsync(Wait));
            committed.Add((pid, payloads[i]));
        }
    }
}
