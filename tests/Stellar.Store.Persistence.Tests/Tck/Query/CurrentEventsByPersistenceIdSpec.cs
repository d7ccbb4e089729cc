// Adapted from Akka.Persistence.TCK (Query/CurrentEventsByPersistenceIdSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2022 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2025 .NET Foundation <https://github.com/akkadotnet/akka.net>

using Akka.Actor;
using Akka.Persistence.Query;
using Akka.Streams.Dsl;
using Akka.Streams.TestKit;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>The TCK's current by-persistence-id query specification against the Stellar read journal.</summary>
public class CurrentEventsByPersistenceIdSpec(ITestOutputHelper output) : QuerySpec(PluginTestConfig.NewDirectory(), nameof(CurrentEventsByPersistenceIdSpec), output)
{
    private ICurrentEventsByPersistenceIdQuery Queries => (ICurrentEventsByPersistenceIdQuery)ReadJournal;

    [Fact]
    public void ReadJournal_should_implement_ICurrentEventsByPersistenceIdQuery() => Assert.IsAssignableFrom<ICurrentEventsByPersistenceIdQuery>(ReadJournal);

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_find_existing_events()
    {
        Setup("a", 3);
        var probe = Events("a", 0, long.MaxValue);
        probe.Request(2).ExpectNext("a-1", "a-2").ExpectNoMsg(TimeSpan.FromMilliseconds(500));
        probe.Request(2).ExpectNext("a-3").ExpectComplete();
    }

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_find_existing_events_up_to_a_sequence_number()
    {
        Setup("b", 3);
        Events("b", 0L, 2L).Request(5).ExpectNext("b-1", "b-2").ExpectComplete();
    }

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_not_see_new_events_after_completion()
    {
        var pref = Setup("f", 3);
        var probe = Events("f", 0L, long.MaxValue);
        probe.Request(2).ExpectNext("f-1", "f-2").ExpectNoMsg(TimeSpan.FromMilliseconds(100));

        pref.Tell("f-4");
        ExpectMsg("f-4-done");

        probe.ExpectNoMsg(TimeSpan.FromMilliseconds(100));
        probe.Request(5).ExpectNext("f-3").ExpectComplete();
    }

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_return_empty_stream_for_cleaned_journal_from_0_to_MaxLong()
    {
        var pref = Setup("g1", 3);
        pref.Tell(new DeleteCommand(3));
        AwaitAssert(() => ExpectMsg("3-deleted"));
        Events("g1", 0, long.MaxValue).Request(1).ExpectComplete();
    }

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_return_empty_stream_for_cleaned_journal_from_0_to_0()
    {
        var pref = Setup("g2", 3);
        pref.Tell(new DeleteCommand(3));
        AwaitAssert(() => ExpectMsg("3-deleted"));
        Events("g2", 0, 0).Request(1).ExpectComplete();
    }

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_return_remaining_values_after_partial_journal_cleanup()
    {
        var pref = Setup("h", 3);
        pref.Tell(new DeleteCommand(2));
        AwaitAssert(() => ExpectMsg("2-deleted"));
        Events("h", 0L, long.MaxValue).Request(1).ExpectNext("h-3").ExpectComplete();
    }

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_return_empty_stream_for_empty_journal()
    {
        Setup("i", 0);
        Events("i", 0L, long.MaxValue).Request(1).ExpectComplete();
    }

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_return_empty_stream_for_journal_from_0_to_0()
    {
        Setup("k1", 3);
        Events("k1", 0, 0).Request(1).ExpectComplete();
    }

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_return_empty_stream_for_empty_journal_from_0_to_0()
    {
        Setup("k2", 0);
        Events("k2", 0, 0).Request(1).ExpectComplete();
    }

    [Fact]
    public void ReadJournal_CurrentEventsByPersistenceId_should_return_empty_stream_for_journal_from_SequenceNr_greater_than_HighestSequenceNr()
    {
        Setup("l", 3);
        Events("l", 4L, 3L).Request(1).ExpectComplete();
    }

    private TestSubscriber.Probe<object> Events(string persistenceId, long from, long to) =>
        Queries.CurrentEventsByPersistenceId(persistenceId, from, to).Select(x => x.Event).RunWith(this.SinkProbe<object>(), Materializer);
}
