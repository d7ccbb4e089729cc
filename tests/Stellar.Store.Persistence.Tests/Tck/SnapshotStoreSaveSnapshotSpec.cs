// Adapted from Akka.Persistence.TCK (Snapshot/SnapshotStoreSaveSnapshotSpec.cs) of the Akka.NET project, Apache
// License 2.0:
//     Copyright (C) 2009-2022 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2025 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: the two concurrent-save cases run (the store commits saves in the order they were submitted, so the
// last save of a burst wins), with 10 iterations by default and the TCK's 200 under STELLAR_STRESS=1.

using Akka.Actor;
using Akka.Persistence;
using Akka.TestKit;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>The TCK's save-snapshot specification against <see cref="StellarSnapshotStore"/>.</summary>
public class SnapshotStoreSaveSnapshotSpec : PluginSpec
{
    private static readonly int RepeatCount = Stress.Pick(10, 200);
    private readonly TestProbe _senderProbe;
    private string _persistenceId = "ac-" + Guid.NewGuid().ToString("N")[^8..];
    private int _incarnations;

    public SnapshotStoreSaveSnapshotSpec(ITestOutputHelper output)
        : this(PluginTestConfig.NewDirectory(), output)
    {
    }

    private SnapshotStoreSaveSnapshotSpec(string directory, ITestOutputHelper output)
        : base(directory, PluginTestConfig.For(directory), nameof(SnapshotStoreSaveSnapshotSpec), output)
    {
        _senderProbe = CreateTestProbe();
    }

    [Fact(DisplayName = "Rapid multiple SaveSnapshot invocation with no journal persist should only save the latest snapshot")]
    public async Task MultipleSnapshotsWithNoPersistTest()
    {
        for (var iteration = 1; iteration <= RepeatCount; iteration++)
        {
            NewPersistenceId();
            var actor = CreatePersistenceActor();
            actor.Tell(new TakeSnapshotsWithValues([[0], [1], [2], [3]]), _senderProbe);
            await _senderProbe.ExpectMsgAsync<SnapshotAck>();
            await StopActorAsync(actor);

            actor = CreatePersistenceActor();
            actor.Tell(GetAll.Instance, _senderProbe);
            var result = await _senderProbe.ExpectMsgAsync<int[]>();
            await StopActorAsync(actor);

            Assert.Equal([3], result);
        }
    }

    [Fact(DisplayName = "Rapid multiple SaveSnapshot invocation with journal persist should only save the latest snapshot")]
    public async Task MultipleSnapshotsWithPersistTest()
    {
        for (var iteration = 1; iteration <= RepeatCount; iteration++)
        {
            NewPersistenceId();
            var actor = CreatePersistenceActor();
            actor.Tell(1, _senderProbe);
            await _senderProbe.ExpectMsgAsync<Ack>();
            actor.Tell(2, _senderProbe);
            await _senderProbe.ExpectMsgAsync<Ack>();

            actor.Tell(new TakeSnapshotsWithValues([[0], [1], [2], [3]]), _senderProbe);
            await _senderProbe.ExpectMsgAsync<SnapshotAck>();
            await StopActorAsync(actor);

            actor = CreatePersistenceActor();
            actor.Tell(GetAll.Instance, _senderProbe);
            var result = await _senderProbe.ExpectMsgAsync<int[]>();
            await StopActorAsync(actor);

            Assert.Equal([3], result);
        }
    }

    [Fact(DisplayName = "Multiple SaveSnapshot invocation with the same sequence number should not throw")]
    public async Task MultipleSnapshotsWithSameSeqNo()
    {
        var snapshotStore = Extension.SnapshotStoreFor(null);
        var metadata = new SnapshotMetadata(_persistenceId, 3, DateTime.UtcNow);
        snapshotStore.Tell(new SaveSnapshot(metadata, new TestPayload(_senderProbe.Ref)), _senderProbe);
        var success = await _senderProbe.ExpectMsgAsync<SaveSnapshotSuccess>(TimeSpan.FromMinutes(1));
        Assert.Equal(metadata.PersistenceId, success.Metadata.PersistenceId);
        Assert.Equal(metadata.Timestamp, success.Metadata.Timestamp);
        Assert.Equal(metadata.SequenceNr, success.Metadata.SequenceNr);

        metadata = new SnapshotMetadata(_persistenceId, 3, DateTime.UtcNow);
        snapshotStore.Tell(new SaveSnapshot(metadata, 3), _senderProbe);
        success = await _senderProbe.ExpectMsgAsync<SaveSnapshotSuccess>();
        Assert.Equal(metadata.PersistenceId, success.Metadata.PersistenceId);
        Assert.Equal(metadata.Timestamp, success.Metadata.Timestamp);
        Assert.Equal(metadata.SequenceNr, success.Metadata.SequenceNr);
    }

    private void NewPersistenceId() => _persistenceId = "ac-" + Guid.NewGuid().ToString("N")[^8..];

    // The TCK names every incarnation "persistence-actor-1"; the guardian frees a name only once it has processed the
    // child's termination, which may come after the test's own Terminated, so a reused name fails at random.
    private IActorRef CreatePersistenceActor()
    {
        var id = _persistenceId;
        return Sys.ActorOf(Props.Create(() => new SnapshottingActor(id)), $"persistence-actor-{++_incarnations}");
    }

    private async Task StopActorAsync(IActorRef actor)
    {
        await WatchAsync(actor);
        actor.Tell(PoisonPill.Instance);
        await ExpectTerminatedAsync(actor);
        await UnwatchAsync(actor);
    }
}
