// Adapted from Akka.Persistence.TCK (Serialization/JournalSerializationSpec.cs) of the Akka.NET project, Apache
// License 2.0:
//     Copyright (C) 2009-2016 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2016 Akka.NET project <https://github.com/akkadotnet/akka.net>
// Changed: run against the Stellar journal; the TCK's skipped StateChangeEvent case is left out, as it is there.

using Akka.Actor;
using Akka.Persistence;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>The TCK's journal serialization specification against <see cref="StellarJournal"/>.</summary>
public class JournalSerializationSpec : PluginSpec
{
    public JournalSerializationSpec(ITestOutputHelper output)
        : this(PluginTestConfig.NewDirectory(), output)
    {
    }

    private JournalSerializationSpec(string directory, ITestOutputHelper output)
        : base(directory, PluginTestConfig.For(directory), nameof(JournalSerializationSpec), output)
    {
    }

    private IActorRef Journal => Extension.JournalFor(null);

    [Fact]
    public void Journal_should_serialize_Persistent()
    {
        var probe = CreateTestProbe();
        var persistentEvent = new Persistent("string payload", 1L, Pid, null, false, null, WriterGuid);

        Journal.Tell(new WriteMessages([new AtomicWrite(persistentEvent)], probe.Ref, ActorInstanceId));
        probe.ExpectMsg<WriteMessagesSuccessful>();
        probe.ExpectMsg<WriteMessageSuccess>(m => m.ActorInstanceId == ActorInstanceId && m.Persistent.PersistenceId == Pid);

        Journal.Tell(new ReplayMessages(0, 1L, long.MaxValue, Pid, probe.Ref));
        probe.ExpectMsg<ReplayedMessage>(s => s.Persistent.PersistenceId == persistentEvent.PersistenceId
            && s.Persistent.SequenceNr == persistentEvent.SequenceNr
            && s.Persistent.Payload.Equals(persistentEvent.Payload));
        probe.ExpectMsg<RecoverySuccess>();
    }
}
