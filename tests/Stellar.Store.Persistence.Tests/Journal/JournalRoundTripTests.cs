using System.Collections.Immutable;
using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// The journal through Akka.Persistence's own protocol (WriteMessages, ReplayMessages), across restarts of the actor
/// system: what a write acknowledged must replay as it was given, for every payload type and every persistence id.
/// The oracle is the test's own list of what was acknowledged.
/// </summary>
public sealed class JournalRoundTripTests : IDisposable
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [Fact]
    public async Task Replay_OfEventsOfSeveralTypes_GivesEachBackWithItsOwnTypeAndValue()
    {
        // The types Akka's default serializers give back as they were, or with a manifest of their own (the same Newtonsoft
        // JSON that Akka's SQL journals store turns a top-level short, enum, char or Guid into a long or a string).
        object[] events = [42, 42L, true, 2.25d, "text", new GoldChanged("alice", -15), new byte[] { 1, 2, 3 }];
        var pid = "typed";
        using (var system = ActorSystem.Create("typed-write", PluginTestConfig.For(_directory)))
        {
            var outcomes = await WriteAsync(system, pid, 1, events.Select(e => new[] { e }).ToArray());
            Assert.All(outcomes, o => Assert.IsType<WriteMessageSuccess>(o));
            await AssertReplaysAsync(system, pid, events, events.Length);
            await system.Terminate();
        }

        using (var restarted = ActorSystem.Create("typed-read", PluginTestConfig.For(_directory)))
        {
            await AssertReplaysAsync(restarted, pid, events, events.Length);
            await restarted.Terminate();
        }
    }

    [Fact]
    public async Task Replay_AfterARestart_GivesEveryPersistenceIdItsOwnEventsWhateverItsCharacters()
    {
        string[] ids =
        [
            "player/eu-1/42", "with space", "ünïcødé-🎮", "nul\0inside", "a\u0301", "\u00e1", new string('x', 300),
            "lone-\uD800", "lone-\uDBFF", "reversed-\uDC00\uD800",
        ];

        // What each id's writes acknowledged: the oracle, whatever the journal decides about an odd id.
        var acknowledged = ids.ToDictionary(id => id, _ => new List<object>(), StringComparer.Ordinal);
        var highest = ids.ToDictionary(id => id, _ => 0L, StringComparer.Ordinal);
        using (var system = ActorSystem.Create("ids-write", PluginTestConfig.For(_directory)))
        {
            foreach (var id in ids)
            {
                var events = Enumerable.Range(1, 3).Select(i => (object)$"{id}#{i}").ToArray();
                var outcomes = await WriteAsync(system, id, 1, events.Select(e => new[] { e }).ToArray());
                for (var i = 0; i < events.Length; i++)
                {
                    if (outcomes[i] is WriteMessageSuccess)
                    {
                        acknowledged[id].Add(events[i]);
                        highest[id] = i + 1;
                    }
                    else
                    {
                        Assert.IsType<WriteMessageRejected>(outcomes[i]);
                    }
                }
            }

            await system.Terminate();
        }

        using var restarted = ActorSystem.Create("ids-read", PluginTestConfig.For(_directory));
        foreach (var id in ids)
        {
            await AssertReplaysAsync(restarted, id, acknowledged[id], highest[id]);
        }

        await restarted.Terminate();
    }

    [Fact]
    public async Task Replay_AfterDeletingEverythingAndARestart_KeepsTheHighestSequenceNrAndTakesTheNextEvent()
    {
        const string Pid = "deleted";
        using (var system = ActorSystem.Create("delete-write", PluginTestConfig.For(_directory)))
        {
            await WriteAsync(system, Pid, 1, [["e1"], ["e2", "e3"], ["e4"]]);
            var inbox = Inbox.Create(system);
            Journal(system).Tell(new DeleteMessagesTo(Pid, long.MaxValue, inbox.Receiver));
            Assert.IsType<DeleteMessagesSuccess>(await inbox.ReceiveAsync(Wait));
            await system.Terminate();
        }

        using var restarted = ActorSystem.Create("delete-read", PluginTestConfig.For(_directory));
        await AssertReplaysAsync(restarted, Pid, [], 4);
        var outcomes = await WriteAsync(restarted, Pid, 5, [["e5"]]);
        Assert.IsType<WriteMessageSuccess>(outcomes[0]);
        await AssertReplaysAsync(restarted, Pid, ["e5"], 5);
        await restarted.Terminate();
    }

    private static IActorRef Journal(ActorSystem system) => Akka.Persistence.Persistence.Instance.Apply(system).JournalFor(null);

    /// <summary>Writes one AtomicWrite per entry of <paramref name="writes"/>, numbered from <paramref name="from"/>; gives each event's reply.</summary>
    private static async Task<List<object>> WriteAsync(ActorSystem system, string pid, long from, object[][] writes)
    {
        var inbox = Inbox.Create(system);
        var sequenceNr = from;
        var messages = writes.Select(events => (IPersistentEnvelope)new AtomicWrite(
                events.Select(e => (IPersistentRepresentation)new Persistent(e, sequenceNr++, pid, string.Empty, false, ActorRefs.NoSender, "writer")).ToImmutableList()))
            .ToArray();
        var count = writes.Sum(w => w.Length);
        Journal(system).Tell(new WriteMessages(messages, inbox.Receiver, 1));
        Assert.IsType<WriteMessagesSuccessful>(await inbox.ReceiveAsync(Wait));
        var replies = new List<object>();
        for (var i = 0; i < count; i++)
        {
            replies.Add(await inbox.ReceiveAsync(Wait));
        }

        return replies;
    }

    private static async Task AssertReplaysAsync(ActorSystem system, string pid, IReadOnlyList<object> expected, long highest)
    {
        var inbox = Inbox.Create(system);
        Journal(system).Tell(new ReplayMessages(0, long.MaxValue, long.MaxValue, pid, inbox.Receiver));
        var replayed = new List<object>();
        var reply = await inbox.ReceiveAsync(Wait);
        while (reply is ReplayedMessage message)
        {
            Assert.Equal(pid, message.Persistent.PersistenceId);
            replayed.Add(message.Persistent.Payload);
            reply = await inbox.ReceiveAsync(Wait);
        }

        Assert.Equal(expected.Count, replayed.Count);
        var differ = expected.Zip(replayed).Where(p => p.First.GetType() != p.Second.GetType() || !Equals(p.First, p.Second) && p.First is not byte[])
            .Select(p => $"{p.First.GetType().Name} {p.First} -> {p.Second.GetType().Name} {p.Second}").ToList();
        Assert.Empty(differ);
        Assert.Equal(highest, Assert.IsType<RecoverySuccess>(reply).HighestSequenceNr);
    }
}
