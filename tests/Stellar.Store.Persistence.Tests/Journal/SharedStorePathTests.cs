using System.Collections.Immutable;
using Akka.Actor;
using Akka.Configuration;
using Akka.Persistence;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// The journal and the snapshot store of one actor system that name one directory share one open store, however each
/// spells the path: the store locks its directory, so two opens of it could not both succeed.
/// </summary>
public sealed class SharedStorePathTests : IDisposable
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
    private readonly string _directory = PluginTestConfig.NewDirectory();

    public void Dispose() => PluginTestConfig.Delete(_directory);

    [Theory]
    [InlineData("/")]
    [InlineData("/./")]
    [InlineData("/sub/..")]
    public async Task JournalAndSnapshotStore_NamingOneDirectoryDifferently_ShareOneStore(string spelling)
    {
        var snapshotPath = (_directory + spelling).Replace("\\", "/", StringComparison.Ordinal);
        var config = ConfigurationFactory.ParseString($"akka.persistence.snapshot-store.stellar.path = \"{snapshotPath}\"")
            .WithFallback(PluginTestConfig.For(_directory));
        using var system = ActorSystem.Create("one-directory", config);
        var persistence = Akka.Persistence.Persistence.Instance.Apply(system);
        var inbox = Inbox.Create(system);

        var persistent = new Persistent("e1", 1, "hero", string.Empty, false, ActorRefs.NoSender, "writer");
        persistence.JournalFor(null).Tell(new WriteMessages([new AtomicWrite(ImmutableList.Create<IPersistentRepresentation>(persistent))], inbox.Receiver, 1));
        Assert.IsType<WriteMessagesSuccessful>(await inbox.ReceiveAsync(Wait));
        Assert.IsType<WriteMessageSuccess>(await inbox.ReceiveAsync(Wait));

        persistence.SnapshotStoreFor(null).Tell(new SaveSnapshot(new SnapshotMetadata("hero", 1, DateTime.UtcNow), "state-1"), inbox.Receiver);
        Assert.IsType<SaveSnapshotSuccess>(await inbox.ReceiveAsync(Wait));
        await system.Terminate();
    }
}
