// Adapted from Akka.Persistence.TCK (Snapshot/SnapshotStoreSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2019 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2019 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: run against the Stellar snapshot store on a fresh directory; the 10,000-byte case also loads the
// snapshot back and compares its bytes.

using Akka.Actor;
using Akka.Persistence;
using Akka.TestKit;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>The TCK's snapshot store specification, case by case, against <see cref="StellarSnapshotStore"/>.</summary>
public class SnapshotStoreSpec : PluginSpec
{
    private const int SnapshotByteSizeLimit = 10000;
    private readonly TestProbe _senderProbe;
    private readonly List<SnapshotMetadata> _metadata;

    public SnapshotStoreSpec(ITestOutputHelper output)
        : this(PluginTestConfig.NewDirectory(), output)
    {
    }

    private SnapshotStoreSpec(string directory, ITestOutputHelper output)
        : base(directory, PluginTestConfig.For(directory), nameof(SnapshotStoreSpec), output)
    {
        _senderProbe = CreateTestProbe();
        _metadata = [];
        for (var i = 1; i <= 5; i++)
        {
            SnapshotStore.Tell(new SaveSnapshot(new SnapshotMetadata(Pid, i + 10, DateTime.UtcNow), $"s-{i}"), _senderProbe.Ref);
            _metadata.Add(_senderProbe.ExpectMsg<SaveSnapshotSuccess>().Metadata);
        }
    }

    private IActorRef SnapshotStore => Extension.SnapshotStoreFor(null);

    [Fact]
    public void SnapshotStore_should_not_load_a_snapshot_given_an_invalid_persistence_id()
    {
        SnapshotStore.Tell(new LoadSnapshot("invalid", SnapshotSelectionCriteria.Latest, long.MaxValue), _senderProbe.Ref);
        _senderProbe.ExpectMsg<LoadSnapshotResult>(r => r.Snapshot == null && r.ToSequenceNr == long.MaxValue);
    }

    [Fact]
    public void SnapshotStore_should_not_load_a_snapshot_given_non_matching_timestamp_criteria()
    {
        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(long.MaxValue, new DateTime(100000)), long.MaxValue), _senderProbe.Ref);
        _senderProbe.ExpectMsg<LoadSnapshotResult>(r => r.Snapshot == null && r.ToSequenceNr == long.MaxValue);
    }

    [Fact]
    public void SnapshotStore_should_not_load_a_snapshot_given_non_matching_sequence_number_criteria()
    {
        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(7), long.MaxValue), _senderProbe.Ref);
        _senderProbe.ExpectMsg<LoadSnapshotResult>(r => r.Snapshot == null && r.ToSequenceNr == long.MaxValue);

        SnapshotStore.Tell(new LoadSnapshot(Pid, SnapshotSelectionCriteria.Latest, 7), _senderProbe.Ref);
        _senderProbe.ExpectMsg<LoadSnapshotResult>(r => r.Snapshot == null && r.ToSequenceNr == 7);
    }

    [Fact]
    public void SnapshotStore_should_load_the_most_recent_snapshot()
    {
        SnapshotStore.Tell(new LoadSnapshot(Pid, SnapshotSelectionCriteria.Latest, long.MaxValue), _senderProbe.Ref);
        ExpectLoaded(long.MaxValue, 4, "s-5");
    }

    [Fact]
    public void SnapshotStore_should_load_the_most_recent_snapshot_matching_an_upper_sequence_number_bound()
    {
        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(13), long.MaxValue), _senderProbe.Ref);
        ExpectLoaded(long.MaxValue, 2, "s-3");

        SnapshotStore.Tell(new LoadSnapshot(Pid, SnapshotSelectionCriteria.Latest, 13), _senderProbe.Ref);
        ExpectLoaded(13, 2, "s-3");
    }

    [Fact]
    public void SnapshotStore_should_load_the_most_recent_snapshot_matching_an_upper_sequence_number_and_timestamp_bound()
    {
        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(13, _metadata[2].Timestamp), long.MaxValue), _senderProbe.Ref);
        ExpectLoaded(long.MaxValue, 2, "s-3");

        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(long.MaxValue, _metadata[2].Timestamp), 13), _senderProbe.Ref);
        ExpectLoaded(13, 2, "s-3");
    }

    [Fact]
    public void SnapshotStore_should_delete_a_single_snapshot_identified_by_SequenceNr_in_snapshot_metadata()
    {
        var md = new SnapshotMetadata(_metadata[2].PersistenceId, _metadata[2].SequenceNr, DateTime.MinValue); // the timestamp does not matter for a single delete
        var command = new DeleteSnapshot(md);
        var sub = CreateTestProbe();

        Subscribe<DeleteSnapshot>(sub.Ref);
        SnapshotStore.Tell(command, _senderProbe.Ref);
        sub.ExpectMsg(command);
        _senderProbe.ExpectMsg<DeleteSnapshotSuccess>();

        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(md.SequenceNr), long.MaxValue), _senderProbe.Ref);
        ExpectLoaded(long.MaxValue, 1, "s-2");
    }

    [Fact]
    public void SnapshotStore_should_delete_all_snapshots_matching_upper_sequence_number_and_timestamp_bounds()
    {
        var md = _metadata[2];
        var command = new DeleteSnapshots(Pid, new SnapshotSelectionCriteria(md.SequenceNr, md.Timestamp));
        var sub = CreateTestProbe();

        Subscribe<DeleteSnapshots>(sub.Ref);
        SnapshotStore.Tell(command, _senderProbe.Ref);
        sub.ExpectMsg(command);
        _senderProbe.ExpectMsg<DeleteSnapshotsSuccess>();

        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(md.SequenceNr, md.Timestamp), long.MaxValue), _senderProbe.Ref);
        _senderProbe.ExpectMsg<LoadSnapshotResult>(r => r.Snapshot == null && r.ToSequenceNr == long.MaxValue);

        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(_metadata[3].SequenceNr, _metadata[3].Timestamp), long.MaxValue), _senderProbe.Ref);
        ExpectLoaded(long.MaxValue, 3, "s-4");
    }

    [Fact]
    public void SnapshotStore_should_not_delete_snapshots_with_non_matching_upper_timestamp_bounds()
    {
        var md = _metadata[3];
        var criteria = new SnapshotSelectionCriteria(md.SequenceNr, md.Timestamp.Subtract(TimeSpan.FromTicks(1)));
        var command = new DeleteSnapshots(Pid, criteria);
        var sub = CreateTestProbe();

        Subscribe<DeleteSnapshots>(sub.Ref);
        SnapshotStore.Tell(command, _senderProbe.Ref);
        sub.ExpectMsg(command);
        _senderProbe.ExpectMsg<DeleteSnapshotsSuccess>(m => m.Criteria.Equals(criteria));

        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(md.SequenceNr, md.Timestamp), long.MaxValue), _senderProbe.Ref);
        ExpectLoaded(long.MaxValue, 3, "s-4");
    }

    [Fact]
    public void SnapshotStore_should_save_and_overwrite_snapshot_with_same_sequence_number()
    {
        var md = _metadata[4];
        SnapshotStore.Tell(new SaveSnapshot(md, "s-5-modified"), _senderProbe.Ref);
        var md2 = _senderProbe.ExpectMsg<SaveSnapshotSuccess>().Metadata;
        Assert.Equal(md.SequenceNr, md2.SequenceNr);
        SnapshotStore.Tell(new LoadSnapshot(Pid, new SnapshotSelectionCriteria(md.SequenceNr), long.MaxValue), _senderProbe.Ref);
        var result = _senderProbe.ExpectMsg<LoadSnapshotResult>();
        Assert.Equal("s-5-modified", result.Snapshot.Snapshot.ToString());
        Assert.Equal(md.SequenceNr, result.Snapshot.Metadata.SequenceNr);
    }

    [Fact]
    public void SnapshotStore_should_save_bigger_size_snapshot()
    {
        var metadata = new SnapshotMetadata(Pid, 100, DateTime.UtcNow);
        var bigSnapshot = new byte[SnapshotByteSizeLimit];
        new Random(100).NextBytes(bigSnapshot);
        SnapshotStore.Tell(new SaveSnapshot(metadata, bigSnapshot), _senderProbe.Ref);
        _senderProbe.ExpectMsg<SaveSnapshotSuccess>();

        SnapshotStore.Tell(new LoadSnapshot(Pid, SnapshotSelectionCriteria.Latest, long.MaxValue), _senderProbe.Ref);
        Assert.Equal(bigSnapshot, (byte[])_senderProbe.ExpectMsg<LoadSnapshotResult>().Snapshot.Snapshot);
    }

    [Fact]
    public void ShouldSerializeSnapshots()
    {
        var probe = CreateTestProbe();
        var metadata = new SnapshotMetadata(Pid, 100L, DateTime.UtcNow);
        var snap = new TestPayload(probe.Ref);

        SnapshotStore.Tell(new SaveSnapshot(metadata, snap), _senderProbe.Ref);
        var saved = _senderProbe.ExpectMsg<SaveSnapshotSuccess>().Metadata;
        Assert.Equal(metadata.PersistenceId, saved.PersistenceId);
        Assert.Equal(metadata.SequenceNr, saved.SequenceNr);

        SnapshotStore.Tell(new LoadSnapshot(Pid, SnapshotSelectionCriteria.Latest, long.MaxValue), _senderProbe.Ref);
        var loaded = _senderProbe.ExpectMsg<LoadSnapshotResult>().Snapshot;
        Assert.Equal(Pid, loaded.Metadata.PersistenceId);
        Assert.Equal(100L, loaded.Metadata.SequenceNr);
        Assert.Equal(snap, loaded.Snapshot);
    }

    private void ExpectLoaded(long toSequenceNr, int index, string snapshot)
    {
        var result = _senderProbe.ExpectMsg<LoadSnapshotResult>();
        Assert.Equal(toSequenceNr, result.ToSequenceNr);
        Assert.NotNull(result.Snapshot);
        Assert.Equal(_metadata[index], result.Snapshot.Metadata);
        Assert.Equal(snapshot, result.Snapshot.Snapshot.ToString());
    }
}
