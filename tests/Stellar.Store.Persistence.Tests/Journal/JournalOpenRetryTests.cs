using System.Collections.Immutable;
using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// A journal whose store could not be opened (another server held its directory) opens it at a later call once the
/// cause is gone, instead of failing every call until the process restarts.
/// </summary>
public sealed class JournalOpenRetryTests : IDisposable
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [Fact]
    public async Task Journal_WhoseStoreWasLockedAtFirst_OpensItOnceTheOtherOwnerLetGo()
    {
        var holder = ActorSystem.Create("holder", PluginTestConfig.For(_directory));
        using var system = ActorSystem.Create("waiting", PluginTestConfig.For(_directory));
        try
        {
            var held = Akka.Persistence.Persistence.Instance.Apply(holder).JournalFor(null);
            var holderInbox = Inbox.Create(holder);
            Assert.IsType<WriteMessagesSuccessful>(await WriteAsync(held, holderInbox, "first", 1));

            var journal = Akka.Persistence.Persistence.Instance.Apply(system).JournalFor(null);
            var inbox = Inbox.Create(system);
            var refused = Assert.IsType<WriteMessagesFailed>(await WriteAsync(journal, inbox, "second", 2));
            Assert.IsType<StoreLockedException>(refused.Cause);

            await holder.Terminate();
            Assert.IsType<WriteMessagesSuccessful>(await WriteAsync(journal, inbox, "second", 2));
            journal.Tell(new ReplayMessages(1, long.MaxValue, long.MaxValue, "hero", inbox.Receiver));
            Assert.Equal("first", Assert.IsType<ReplayedMessage>(await inbox.ReceiveAsync(Wait)).Persistent.Payload);
            Assert.Equal("second", Assert.IsType<ReplayedMessage>(await inbox.ReceiveAsync(Wait)).Persistent.Payload);
            Assert.Equal(2, Assert.IsType<RecoverySuccess>(await inbox.ReceiveAsync(Wait)).HighestSequenceNr);
        }
        finally
        {
            await holder.Terminate();
            await system.Terminate();
        }
    }

    /// <summary>Writes one event; returns the journal's first answer (the second, per event, is read and checked to match).</summary>
    private static async Task<object> WriteAsync(IActorRef journal, Inbox inbox, string payload, long sequenceNr)
    {
        var persistent = new Persistent(payload, sequenceNr, "hero", string.Empty, false, ActorRefs.NoSender, "writer");
        journal.Tell(new WriteMessages([new AtomicWrite(ImmutableList.Create<IPersistentRepresentation>(persistent))], inbox.Receiver, 1));
        var first = await inbox.ReceiveAsync(Wait);
        var second = await inbox.ReceiveAsync(Wait);
        Assert.IsType(first is WriteMessagesSuccessful ? typeof(WriteMessageSuccess) : typeof(WriteMessageFailure), second);
        return first;
    }
}
