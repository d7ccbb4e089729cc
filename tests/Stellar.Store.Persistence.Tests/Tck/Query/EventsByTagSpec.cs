// Adapted from Akka.Persistence.TCK (Query/EventsByTagSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2022 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2025 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: assertions with xUnit instead of FluentAssertions; the envelope's tags are checked (SupportsTagsInEventEnvelope).

using Akka.Actor;
using Akka.Persistence.Query;
using Akka.Streams.TestKit;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>The TCK's live by-tag query specification against the Stellar read journal.</summary>
public class EventsByTagSpec(ITestOutputHelper output) : QuerySpec(PluginTestConfig.NewDirectory(), nameof(EventsByTagSpec), output)
{
    private IEventsByTagQuery Queries => (IEventsByTagQuery)ReadJournal;

    [Fact]
    public void ReadJournal_should_implement_IEventsByTagQuery() => Assert.IsAssignableFrom<IEventsByTagQuery>(ReadJournal);

    [Fact]
    public void ReadJournal_live_query_EventsByTag_should_find_new_events()
    {
        var b = Sys.ActorOf(QueryTestActor.Props("b"));
        var d = Sys.ActorOf(QueryTestActor.Props("d"));

        b.Tell("a black car");
        ExpectMsg("a black car-done");

        var probe = Queries.EventsByTag("black", Offset.NoOffset()).RunWith(this.SinkProbe<EventEnvelope>(), Materializer);
        probe.Request(2);
        Envelopes.Expect(probe, "b", 1L, "a black car", "black");
        probe.ExpectNoMsg(TimeSpan.FromMilliseconds(100));

        d.Tell("a black dog");
        ExpectMsg("a black dog-done");
        d.Tell("a black night");
        ExpectMsg("a black night-done");

        Envelopes.Expect(probe, "d", 1L, "a black dog", "black");
        probe.ExpectNoMsg(TimeSpan.FromMilliseconds(100));
        probe.Request(10);
        Envelopes.Expect(probe, "d", 2L, "a black night", "black");
        probe.Cancel();
    }

    [Fact]
    public async Task ReadJournal_live_query_EventsByTag_should_find_events_from_offset_exclusive()
    {
        var a = Sys.ActorOf(QueryTestActor.Props("a"), "a");
        var b = Sys.ActorOf(QueryTestActor.Props("b"), "b");
        var c = Sys.ActorOf(QueryTestActor.Props("c"), "c");
        await Task.WhenAll(a.Ask<ActorIdentity>(new Identify("a")), b.Ask<ActorIdentity>(new Identify("b")), c.Ask<ActorIdentity>(new Identify("c")));

        foreach (var (actor, text) in Envelopes.GreenScript(a, b, c))
        {
            actor.Tell(text);
            await ExpectMsgAsync(text + "-done");
        }

        var probe1 = Queries.EventsByTag("green", Offset.NoOffset()).RunWith(this.SinkProbe<EventEnvelope>(), Materializer);
        await probe1.RequestAsync(2);
        Envelopes.Expect(await probe1.ExpectNextAsync(), "a", 2L, "a green apple", "green");
        var offset = Envelopes.Expect(await probe1.ExpectNextAsync(), "a", 4L, "a green banana", "green").Offset;
        await probe1.CancelAsync();

        var probe2 = Queries.EventsByTag("green", offset).RunWith(this.SinkProbe<EventEnvelope>(), Materializer);
        await probe2.RequestAsync(10);
        Envelopes.Expect(await probe2.ExpectNextAsync(), "b", 2L, "a green leaf", "green");
        Envelopes.Expect(await probe2.ExpectNextAsync(), "c", 1L, "a green cucumber", "green");
        await probe2.ExpectNoMsgAsync(TimeSpan.FromMilliseconds(100));
        await probe2.CancelAsync();
    }
}
