using System.Globalization;
using Akka.Actor;
using Akka.Configuration;
using Akka.Persistence;
using Stellar.Store.Persistence;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Reliability;

/// <summary>
/// kill -9 of a process of persistent actors on the Stellar journal (write-through), at random points: after each
/// kill, every event whose Persist handler ran (the child reported it) replays, in order, with no gaps, for every
/// actor. The child goes on from what it recovered, so each round also tests recovery after the previous kill.
/// </summary>
public sealed class PersistenceKillTests(ITestOutputHelper output) : IDisposable
{
    private const int Actors = 20;
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(60);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    [Fact]
    public async Task Kill_WhilePersistentActorsPersist_EveryAcknowledgedEventReplaysInOrder()
    {
        var rounds = Stress.Pick(3, 30);
        var random = new Random(Stress.Seed ?? 21);
        var acknowledged = new Dictionary<string, long>(StringComparer.Ordinal);
        for (var round = 0; round < rounds; round++)
        {
            using (var child = ChildProcess.Start("Stellar.Store.TestHost", "tests/Stellar.Store.TestHost", null, "persist", _directory, Actors.ToString(CultureInfo.InvariantCulture)))
            {
                var ready = 0;
                var acks = 0;
                var killAfter = random.Next(50, 3000);
                while (acks < killAfter)
                {
                    var line = await child.ReadLineAsync(Wait) ?? throw new InvalidOperationException($"the child ended early:\n{child.Output}");
                    var parts = line.Split(' ');
                    if (parts is ["ready", var id, var recovered])
                    {
                        ready++;
                        Assert.True(long.Parse(recovered, CultureInfo.InvariantCulture) >= acknowledged.GetValueOrDefault(id), $"{id} recovered {recovered}, fewer than the {acknowledged.GetValueOrDefault(id)} acknowledged");
                    }
                    else if (parts is ["ack", var actor, var sequenceNr])
                    {
                        acks++;
                        acknowledged[actor] = Math.Max(acknowledged.GetValueOrDefault(actor), long.Parse(sequenceNr, CultureInfo.InvariantCulture));
                    }
                }

                child.Kill();
                output.WriteLine($"round {round}: killed after {acks} acks; {ready} actors had recovered");
            }

            await VerifyAsync(acknowledged);
        }
    }

    public void Dispose() => PluginTestConfig.Delete(_directory);

    /// <summary>Replays every actor's events through the journal, in this process, against the acknowledged counts.</summary>
    private async Task VerifyAsync(Dictionary<string, long> acknowledged)
    {
        var config = ConfigurationFactory.ParseString($$"""
            akka.loglevel = WARNING
            akka.actor.inbox.inbox-size = 10000000
            akka.persistence.journal.plugin = "akka.persistence.journal.stellar"
            akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.stellar"
            akka.persistence.journal.stellar.path = "{{_directory.Replace("\\", "/", StringComparison.Ordinal)}}"
            akka.persistence.snapshot-store.stellar.path = "{{_directory.Replace("\\", "/", StringComparison.Ordinal)}}"
            """).WithFallback(StellarPersistence.DefaultConfiguration());
        using var system = ActorSystem.Create("verify", config);
        try
        {
            var journal = Akka.Persistence.Persistence.Instance.Apply(system).JournalFor(null);
            var inbox = Inbox.Create(system);
            for (var i = 0; i < Actors; i++)
            {
                var id = $"p-{i}";
                journal.Tell(new ReplayMessages(1, long.MaxValue, long.MaxValue, id, inbox.Receiver), inbox.Receiver);
                var expected = 1L;
                while (true)
                {
                    var message = await inbox.ReceiveAsync(Wait);
                    if (message is ReplayedMessage replayed)
                    {
                        Assert.Equal(expected, replayed.Persistent.SequenceNr);
                        Assert.Equal($"e{expected}", replayed.Persistent.Payload);
                        expected++;
                    }
                    else
                    {
                        var success = Assert.IsType<RecoverySuccess>(message);
                        Assert.Equal(expected - 1, success.HighestSequenceNr);
                        break;
                    }
                }

                Assert.True(expected - 1 >= acknowledged.GetValueOrDefault(id), $"{id} replays {expected - 1} events; {acknowledged.GetValueOrDefault(id)} were acknowledged");
            }
        }
        finally
        {
            await system.Terminate();
        }
    }
}
