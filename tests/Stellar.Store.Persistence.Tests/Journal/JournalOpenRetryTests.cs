using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// A journal whose store could not be opened for a cause that may pass (another server held its directory) opens it at
/// a later call once the cause is gone, instead of failing every call until the process restarts; one whose store cannot
/// be opened with its settings (a wrong passphrase) fails every call with that cause, without opening again.
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

    [Fact]
    public async Task Journal_WhosePassphraseDoesNotOpenTheStore_FailsEveryCallWithTheSameWrongKeyException()
    {
        await using (await StellarStore.OpenAsync(_directory, new StoreOptions { Compression = Compression.Lz4, EncryptionPassphrase = "the server's" }))
        {
        }

        using var system = ActorSystem.Create("wrong-passphrase", PluginTestConfig.For(_directory, extra: """
            akka.persistence.journal.stellar.encryption-passphrase = "a typo"
            akka.persistence.snapshot-store.stellar.encryption-passphrase = "a typo"
            """));
        try
        {
            var persistence = Akka.Persistence.Persistence.Instance.Apply(system);
            var journal = persistence.JournalFor(null);
            var inbox = Inbox.Create(system);
            var cause = Assert.IsType<WrongKeyException>(await JournalWrites.WriteAsync(journal, inbox, "hero", 1, "first"));

            // The open is not run again (its key derivation is slow on purpose): the journal's and the snapshot store's
            // later calls fail with the cause the open found.
            Assert.Same(cause, await JournalWrites.WriteAsync(journal, inbox, "hero", 1, "first"));
            persistence.SnapshotStoreFor(null).Tell(new LoadSnapshot("hero", SnapshotSelectionCriteria.Latest, long.MaxValue), inbox.Receiver);
            Assert.Same(cause, Assert.IsType<LoadSnapshotFailed>(await inbox.ReceiveAsync(Wait)).Cause);
        }
        finally
        {
            await system.Terminate();
        }
    }
}
