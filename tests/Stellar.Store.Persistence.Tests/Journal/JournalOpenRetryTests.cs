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
            Assert.Null(await JournalWrites.WriteAsync(held, holderInbox, "hero", 1, "first"));

            var journal = Akka.Persistence.Persistence.Instance.Apply(system).JournalFor(null);
            var inbox = Inbox.Create(system);
            Assert.IsType<StoreLockedException>(await JournalWrites.WriteAsync(journal, inbox, "hero", 2, "second"));

            await holder.Terminate();
            Assert.Null(await JournalWrites.WriteAsync(journal, inbox, "hero", 2, "second"));
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
}
