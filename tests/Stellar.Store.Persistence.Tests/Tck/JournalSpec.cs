// Adapted from Akka.Persistence.TCK (Journal/JournalSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2022 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2025 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: run against the Stellar journal on a fresh directory; in the rejection case the event is bound to a
// serializer that always fails (NotSerializableEvent), where the TCK relies on Newtonsoft.Json failing on an
// ISerializable whose GetObjectData throws, which the Newtonsoft.Json that Akka 1.5.74 ships does not.

using System.Collections.Immutable;
using Akka.Actor;
using Akka.Persistence;
using Akka.TestKit;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>The TCK's journal specification, case by case, against <see cref="StellarJournal"/>.</summary>
public class JournalSpec : PluginSpec
{
    private readonly TestProbe _receiverProbe;

    public JournalSpec(ITestOutputHelper output)
        : this(PluginTestConfig.NewDirectory(), output)
    {
    }

    private JournalSpec(string directory, ITestOutputHelper output)
        : base(directory, PluginTestConfig.For(directory, extra: $$"""
            akka.actor.serializers.always-failing = "{{typeof(FailingSerializer).AssemblyQualifiedName}}"
            akka.actor.serialization-bindings."{{typeof(NotSerializableEvent).AssemblyQualifiedName}}" = always-failing
            """), nameof(JournalSpec), output)
    {
        _receiverProbe = CreateTestProbe();
        WriteMessages(1, 5, Pid, CreateTestProbe().Ref, WriterGuid);
    }

    private IActorRef Journal => Extension.JournalFor(null);

    [Fact]
    public void Journal_should_replay_all_messages()
    {
        Journal.Tell(new ReplayMessages(1, long.MaxValue, long.MaxValue, Pid, _receiverProbe.Ref));
        for (var i = 1; i <= 5; i++)
        {
            ExpectReplayed(i);
        }

        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_replay_messages_using_a_lower_sequence_number_bound()
    {
        Journal.Tell(new ReplayMessages(3, long.MaxValue, long.MaxValue, Pid, _receiverProbe.Ref));
        for (var i = 3; i <= 5; i++)
        {
            ExpectReplayed(i);
        }

        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_replay_messages_using_an_upper_sequence_number_bound()
    {
        Journal.Tell(new ReplayMessages(1, 3, long.MaxValue, Pid, _receiverProbe.Ref));
        for (var i = 1; i <= 3; i++)
        {
            ExpectReplayed(i);
        }

        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_replay_messages_using_a_count_limit()
    {
        Journal.Tell(new ReplayMessages(1, long.MaxValue, 3, Pid, _receiverProbe.Ref));
        for (var i = 1; i <= 3; i++)
        {
            ExpectReplayed(i);
        }

        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_replay_messages_using_lower_and_upper_sequence_number_bound()
    {
        Journal.Tell(new ReplayMessages(2, 3, long.MaxValue, Pid, _receiverProbe.Ref));
        for (var i = 2; i <= 3; i++)
        {
            ExpectReplayed(i);
        }

        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_replay_messages_using_lower_and_upper_sequence_number_bound_and_count_limit()
    {
        Journal.Tell(new ReplayMessages(2, 5, 2, Pid, _receiverProbe.Ref));
        for (var i = 2; i <= 3; i++)
        {
            ExpectReplayed(i);
        }

        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_replay_a_single_if_lower_sequence_number_bound_equals_upper_sequence_number_bound()
    {
        Journal.Tell(new ReplayMessages(2, 2, long.MaxValue, Pid, _receiverProbe.Ref));
        ExpectReplayed(2);
        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_replay_a_single_message_if_count_limit_is_equal_one()
    {
        Journal.Tell(new ReplayMessages(2, 4, 1, Pid, _receiverProbe.Ref));
        ExpectReplayed(2);
        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_not_replay_messages_if_count_limit_equals_zero()
    {
        Journal.Tell(new ReplayMessages(2, 4, 0, Pid, _receiverProbe.Ref));
        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_not_replay_messages_if_lower_sequence_number_bound_is_greater_than_upper_sequence_number_bound()
    {
        Journal.Tell(new ReplayMessages(3, 2, long.MaxValue, Pid, _receiverProbe.Ref));
        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_not_replay_messages_if_the_persistent_actor_has_not_yet_written_messages()
    {
        Journal.Tell(new ReplayMessages(0, long.MaxValue, long.MaxValue, "non-existing-pid", _receiverProbe.Ref));
        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 0L);
    }

    [Fact]
    public void Journal_should_not_replay_permanently_deleted_messages_on_range_deletion()
    {
        var receiverProbe2 = CreateTestProbe();
        var command = new DeleteMessagesTo(Pid, 3, receiverProbe2.Ref);
        var subscriber = CreateTestProbe();

        Subscribe<DeleteMessagesTo>(subscriber.Ref);
        Journal.Tell(command);
        subscriber.ExpectMsg<DeleteMessagesTo>(cmd => cmd.PersistenceId == Pid && cmd.ToSequenceNr == 3);
        receiverProbe2.ExpectMsg<DeleteMessagesSuccess>(m => m.ToSequenceNr == command.ToSequenceNr);

        Journal.Tell(new ReplayMessages(1, long.MaxValue, long.MaxValue, Pid, _receiverProbe.Ref));
        ExpectReplayed(4);
        ExpectReplayed(5);

        receiverProbe2.ExpectNoMsg(TimeSpan.FromMilliseconds(200));
    }

    [Fact]
    public void Journal_should_not_reset_HighestSequenceNr_after_message_deletion()
    {
        Journal.Tell(new ReplayMessages(0, long.MaxValue, long.MaxValue, Pid, _receiverProbe.Ref));
        for (var i = 1; i <= 5; i++)
        {
            ExpectReplayed(i);
        }

        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);

        Journal.Tell(new DeleteMessagesTo(Pid, 3L, _receiverProbe.Ref));
        _receiverProbe.ExpectMsg<DeleteMessagesSuccess>(m => m.ToSequenceNr == 3L);

        Journal.Tell(new ReplayMessages(0, long.MaxValue, long.MaxValue, Pid, _receiverProbe.Ref));
        for (var i = 4; i <= 5; i++)
        {
            ExpectReplayed(i);
        }

        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_not_reset_HighestSequenceNr_after_journal_cleanup()
    {
        Journal.Tell(new ReplayMessages(0, long.MaxValue, long.MaxValue, Pid, _receiverProbe.Ref));
        for (var i = 1; i <= 5; i++)
        {
            ExpectReplayed(i);
        }

        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);

        Journal.Tell(new DeleteMessagesTo(Pid, long.MaxValue, _receiverProbe.Ref));
        _receiverProbe.ExpectMsg<DeleteMessagesSuccess>(m => m.ToSequenceNr == long.MaxValue);

        Journal.Tell(new ReplayMessages(0, long.MaxValue, long.MaxValue, Pid, _receiverProbe.Ref));
        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 5L);
    }

    [Fact]
    public void Journal_should_serialize_events()
    {
        var probe = CreateTestProbe();
        var @event = new TestPayload(probe.Ref);
        var write = new AtomicWrite(new Persistent(@event, 6L, Pid, sender: ActorRefs.NoSender, writerGuid: WriterGuid));

        Journal.Tell(new WriteMessages([write], probe.Ref, ActorInstanceId));

        probe.ExpectMsg<WriteMessagesSuccessful>();
        var written = probe.ExpectMsg<WriteMessageSuccess>().Persistent;
        AssertSerializedEvent(written, @event);

        Journal.Tell(new ReplayMessages(6L, long.MaxValue, long.MaxValue, Pid, _receiverProbe.Ref));
        AssertSerializedEvent(_receiverProbe.ExpectMsg<ReplayedMessage>().Persistent, @event);
        Assert.Equal(6L, _receiverProbe.ExpectMsg<RecoverySuccess>().HighestSequenceNr);
    }

    [Fact]
    public void Journal_optionally_may_reject_non_serializable_events()
    {
        var messages = Enumerable.Range(6, 3).Select(i =>
        {
            object @event = i == 7 ? new NotSerializableEvent(false) : "b-" + i;
            return (IPersistentEnvelope)new AtomicWrite(new Persistent(@event, i, Pid, sender: ActorRefs.NoSender, writerGuid: WriterGuid));
        }).ToArray();

        var probe = CreateTestProbe();
        Journal.Tell(new WriteMessages(messages, probe.Ref, ActorInstanceId));
        probe.ExpectMsg<WriteMessagesSuccessful>();

        probe.ExpectMsg<WriteMessageSuccess>(m => m.Persistent.SequenceNr == 6L && m.Persistent.PersistenceId == Pid
            && m.Persistent.Sender == null && m.Persistent.WriterGuid == WriterGuid && m.Persistent.Payload.Equals("b-6"));
        probe.ExpectMsg<WriteMessageRejected>(m => m.Persistent.SequenceNr == 7L && m.Persistent.PersistenceId == Pid
            && m.Persistent.Sender == null && m.Persistent.WriterGuid == WriterGuid && m.Persistent.Payload is NotSerializableEvent);
        probe.ExpectMsg<WriteMessageSuccess>(m => m.Persistent.SequenceNr == 8L && m.Persistent.PersistenceId == Pid
            && m.Persistent.Sender == null && m.Persistent.WriterGuid == WriterGuid && m.Persistent.Payload.Equals("b-8"));

        // Beyond the TCK: the rejected event is not replayed, the others are, and the highest number is 8.
        Journal.Tell(new ReplayMessages(6, long.MaxValue, long.MaxValue, Pid, _receiverProbe.Ref));
        Assert.Equal("b-6", _receiverProbe.ExpectMsg<ReplayedMessage>().Persistent.Payload);
        Assert.Equal("b-8", _receiverProbe.ExpectMsg<ReplayedMessage>().Persistent.Payload);
        _receiverProbe.ExpectMsg<RecoverySuccess>(m => m.HighestSequenceNr == 8L);
    }

    private void AssertSerializedEvent(IPersistentRepresentation persistent, TestPayload expected)
    {
        Assert.Equal(WriterGuid, persistent.WriterGuid);
        Assert.Equal(Pid, persistent.PersistenceId);
        Assert.Equal(6L, persistent.SequenceNr);
        Assert.True(persistent.Sender == ActorRefs.NoSender || persistent.Sender.Equals(Sys.DeadLetters), $"unexpected sender {persistent.Sender}");
        Assert.Equal(expected, persistent.Payload);
    }

    private void ExpectReplayed(long sequenceNr)
    {
        var persistent = _receiverProbe.ExpectMsg<ReplayedMessage>().Persistent;
        Assert.False(persistent.IsDeleted);
        Assert.Equal("a-" + sequenceNr, persistent.Payload.ToString());
        Assert.Equal(Pid, persistent.PersistenceId);
        Assert.Equal(sequenceNr, persistent.SequenceNr);
    }

    private void WriteMessages(int from, int to, string pid, IActorRef sender, string writerGuid)
    {
        Persistent Event(long i) => new("a-" + i, i, pid, string.Empty, false, sender, writerGuid);

        // As the TCK: every event alone but the last two, which are one AtomicWrite.
        var messages = Enumerable.Range(from, to - 1)
            .Select(i => i == to - 1
                ? new AtomicWrite(ImmutableList.Create<IPersistentRepresentation>(Event(i), Event(i + 1)))
                : new AtomicWrite(Event(i)))
            .Cast<IPersistentEnvelope>()
            .ToArray();
        var probe = CreateTestProbe();
        Journal.Tell(new WriteMessages(messages, probe.Ref, ActorInstanceId));
        probe.ExpectMsg<WriteMessagesSuccessful>();
        for (var i = from; i <= to; i++)
        {
            var n = i;
            probe.ExpectMsg<WriteMessageSuccess>(m => m.Persistent.Payload.ToString() == "a-" + n && m.Persistent.SequenceNr == n && m.Persistent.PersistenceId == Pid);
        }
    }

}
