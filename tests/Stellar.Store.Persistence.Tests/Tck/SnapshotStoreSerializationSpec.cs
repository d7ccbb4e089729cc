// Adapted from Akka.Persistence.TCK (Serialization/SnapshotStoreSerializationSpec.cs) of the Akka.NET project, Apache
// License 2.0:
//     Copyright (C) 2009-2020 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2020 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: run against the Stellar snapshot store; the test snapshot types and their serializers are in their own files.

using Akka.Actor;
using Akka.Persistence;
using Akka.Persistence.Fsm;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>The TCK's snapshot serialization specification against <see cref="StellarSnapshotStore"/>.</summary>
public class SnapshotStoreSerializationSpec : PluginSpec
{
    public SnapshotStoreSerializationSpec(ITestOutputHelper output)
        : this(PluginTestConfig.NewDirectory(), output)
    {
    }

    private SnapshotStoreSerializationSpec(string directory, ITestOutputHelper output)
        : base(directory, PluginTestConfig.For(directory, extra: $$"""
            akka.actor.serializers.my-snapshot = "{{typeof(MySnapshotSerializer).AssemblyQualifiedName}}"
            akka.actor.serializers.my-snapshot2 = "{{typeof(MySnapshotSerializer2).AssemblyQualifiedName}}"
            akka.actor.serialization-bindings."{{typeof(MySnapshot).AssemblyQualifiedName}}" = my-snapshot
            akka.actor.serialization-bindings."{{typeof(MySnapshot2).AssemblyQualifiedName}}" = my-snapshot2
            """), nameof(SnapshotStoreSerializationSpec), output)
    {
    }

    private IActorRef SnapshotStore => Extension.SnapshotStoreFor(null);

    [Fact]
    public void SnapshotStore_should_serialize_Payload()
    {
        var loaded = SaveAndLoad(new MySnapshot("a"), 1);
        Assert.Equal(".a.", Assert.IsType<MySnapshot>(loaded).Data);
    }

    [Fact]
    public void SnapshotStore_should_serialize_Payload_with_string_manifest()
    {
        var loaded = SaveAndLoad(new MySnapshot2("a"), 1);
        Assert.Equal(".a.", Assert.IsType<MySnapshot2>(loaded).Data);
    }

    [Fact]
    public void SnapshotStore_should_serialize_AtLeastOnceDeliverySnapshot()
    {
        UnconfirmedDelivery[] unconfirmed =
        [
            new(1, TestActor.Path, "a"),
            new(2, TestActor.Path, "b"),
            new(3, TestActor.Path, 42),
        ];
        var snapshot = new AtLeastOnceDeliverySnapshot(17, unconfirmed);
        Assert.Equal(snapshot, SaveAndLoad(snapshot, 2));
    }

    [Fact]
    public void SnapshotStore_should_serialize_AtLeastOnceDeliverySnapshot_with_empty_unconfirmed()
    {
        var snapshot = new AtLeastOnceDeliverySnapshot(13, []);
        Assert.Equal(snapshot, SaveAndLoad(snapshot, 2));
    }

    [Fact]
    public void SnapshotStore_should_serialize_PersistentFSMSnapshot()
    {
#pragma warning disable CS0618 // PersistentFSM is obsolete in Akka.NET 1.5, and still in the TCK's list.
        var snapshot = new PersistentFSM.PersistentFSMSnapshot<string>("mystate", "mydata", TimeSpan.FromDays(4));
#pragma warning restore CS0618
        Assert.Equal(snapshot, SaveAndLoad(snapshot, 2));
    }

    private object SaveAndLoad(object snapshot, long sequenceNr)
    {
        var probe = CreateTestProbe();
        SnapshotStore.Tell(new SaveSnapshot(new SnapshotMetadata(Pid, sequenceNr, DateTime.UtcNow), snapshot), probe.Ref);
        probe.ExpectMsg<SaveSnapshotSuccess>();
        SnapshotStore.Tell(new LoadSnapshot(Pid, SnapshotSelectionCriteria.Latest, long.MaxValue), probe.Ref);
        return probe.ExpectMsg<LoadSnapshotResult>().Snapshot.Snapshot;
    }
}
