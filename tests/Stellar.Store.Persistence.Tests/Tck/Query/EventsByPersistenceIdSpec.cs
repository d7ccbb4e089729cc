// Adapted from Akka.Persistence.TCK (Query/EventsByPersistenceIdSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2022 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2025 .NET Foundation <https://github.com/akkadotnet/akka.net>

using Akka.Actor;
using Akka.Persistence.Query;
using Akka.Streams.Dsl;
using Akka.Streams.TestKit;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>The TCK's live by-persistence-id query specification against the Stellar read journal.</summary>
public class EventsByPersistenceIdSpec(ITestOutputHelper output) : QuerySpec(PluginTestConfig.NewDirectory(), nameof(EventsByPersistenceIdSpec), output)
{
    [Fact]
    public void ReadJournal_should_implement_IEventsByPersistenceIdQuery() => Assert.IsAssignableFrom<IEventsByPersistenceIdQuery>(ReadJournal);

    [Fact]
    public void ReadJournal_live_query_EventsByPersistenceId_should_find_new_events()
    {
        var queries = (IEventsByPersistenceIdQuery)ReadJournal;
        var pref = Setup("c", 3);
        var probe = queries.EventsByPersistenceId("c", 0, long.MaxValue).Select(x => x.Event).RunWith(this.SinkProbe<object>(), Materializer);
        probe.Request(5).ExpectNext("c-1", "c-2", "c-3");

        pref.Tell("c-4");
        ExpectMsg("c-4-done");
        probe.ExpectNext("c-4");
    }

    [Fact]
    public void ReadJournal_live_query_EventsByPersistenceId_should_find_new_events_up_to_SequenceNr()
    {
        var queries = (IEventsByPersistenceIdQuery)ReadJournal;
        var pref = Setup("d", 3);
        var probe = queries.EventsByPersistenceId("d", 0, 4).Select(x => x.Event).RunWith(this.SinkProbe<object>(), Materializer);
        probe.Request(5).ExpectNext("d-1", "d-2", "d-3");

        pref.Tell("d-4");
        ExpectMsg("d-4-done");
        probe.ExpectNext("d-4").ExpectComplete();
    }

    [Fact]
    public void ReadJournal_live_query_EventsByPersistenceId_should_find_new_events_after_demand_request()
    {
        var queries = (IEventsByPersistenceIdQuery)ReadJournal;
        var pref = Setup("e", 3);
        var probe = queries.EventsByPersistenceId("e", 0, long.MaxValue).Select(x => x.Event).RunWith(this.SinkProbe<object>(), Materializer);
        probe.Request(2).ExpectNext("e-1", "e-2").ExpectNoMsg(TimeSpan.FromMilliseconds(100));

        pref.Tell("e-4");
        ExpectMsg("e-4-done");
        probe.ExpectNoMsg(TimeSpan.FromMilliseconds(100));
        probe.Request(5).ExpectNext("e-3").ExpectNext("e-4");
    }
}
