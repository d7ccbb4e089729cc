// Adapted from Akka.Persistence.TCK (Query/CurrentEventsByTagSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2022 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2025 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: assertions with xUnit instead of FluentAssertions; the envelope's tags are checked (SupportsTagsInEventEnvelope).

using Akka.Actor;
using Akka.Persistence.Query;
using Akka.Streams.TestKit;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>The TCK's current by-tag query specification against the Stellar read journal.</summary>
public class CurrentEventsByTagSpec(ITestOutputHelper output) : QuerySpec(PluginTestConfig.NewDirectory(), nameof(CurrentEventsByTagSpec), output)
{
    private ICurrentEventsByTagQuery Queries => (ICurrentEventsByTagQuery)ReadJournal;

    [Fact]
    public void ReadJournal_should_implement_ICurrentEventsByTagQuery() => Assert.IsAssignableFrom<ICurrentEventsByTagQuery>(ReadJournal);

    [Fact]
    public void ReadJournal_query_CurrentEventsByTag_should_find_existing_events()
    {
        var a = Sys.ActorOf(QueryTestActor.Props("a"));
        var b = Sys.ActorOf(QueryTestActor.Props("b"));
        PersistScript(a, b, withCucumber: false, c: null);

        var probe = Tagged("green");
        probe.Request(2);
        Envelopes.Expect(probe, "a", 2L, "a green apple", "green");
        Envelopes.Expect(probe, "a", 4L, "a green banana", "green");
        probe.ExpectNoMsg(TimeSpan.FromMilliseconds(500));
        probe.Request(2);
        Envelopes.Expect(probe, "b", 2L, "a green leaf", "green");
        probe.ExpectComplete();

        var probe2 = Tagged("black");
        probe2.Request(5);
        Envelopes.Expect(probe2, "b", 1L, "a black car", "black");
        probe2.ExpectComplete();

        var probe3 = Tagged("apple");
        probe3.Request(5);
        Envelopes.Expect(probe3, "a", 2L, "a green apple", "apple");
        probe3.ExpectComplete();
    }

    [Fact]
    public void ReadJournal_query_CurrentEventsByTag_should_complete_when_no_events()
    {
        var a = Sys.ActorOf(QueryTestActor.Props("a"));
        var b = Sys.ActorOf(QueryTestActor.Props("b"));
        a.Tell("a green apple");
        ExpectMsg("a green apple-done");
        b.Tell("a black car");
        ExpectMsg("a black car-done");

        Tagged("pink").Request(2).ExpectComplete();
    }

    [Fact]
    public void ReadJournal_query_CurrentEventsByTag_should_not_see_new_events_after_complete()
    {
        var a = Sys.ActorOf(QueryTestActor.Props("a"));
        var b = Sys.ActorOf(QueryTestActor.Props("b"));
        PersistScript(a, b, withCucumber: false, c: null);
        var c = Sys.ActorOf(QueryTestActor.Props("c"));

        var probe = Tagged("green");
        probe.Request(2);
        Envelopes.Expect(probe, "a", 2L, "a green apple", "green");
        Envelopes.Expect(probe, "a", 4L, "a green banana", "green");
        probe.ExpectNoMsg(TimeSpan.FromMilliseconds(100));

        c.Tell("a green cucumber");
        ExpectMsg("a green cucumber-done");

        probe.ExpectNoMsg(TimeSpan.FromMilliseconds(100));
        probe.Request(5);
        Envelopes.Expect(probe, "b", 2L, "a green leaf", "green");
        probe.ExpectComplete();
    }

    [Fact]
    public async Task ReadJournal_query_CurrentEventsByTag_should_find_events_from_offset_exclusive()
    {
        var a = Sys.ActorOf(QueryTestActor.Props("a"), "a");
        var b = Sys.ActorOf(QueryTestActor.Props("b"), "b");
        var c = Sys.ActorOf(QueryTestActor.Props("c"), "c");
        await Task.WhenAll(a.Ask<ActorIdentity>(new Identify("a")), b.Ask<ActorIdentity>(new Identify("b")), c.Ask<ActorIdentity>(new Identify("c")));
        PersistScript(a, b, withCucumber: true, c);

        var probe1 = Tagged("green");
        probe1.Request(2);
        Envelopes.Expect(probe1, "a", 2L, "a green apple", "green");
        var offset = Envelopes.Expect(probe1, "a", 4L, "a green banana", "green").Offset;
        probe1.Cancel();

        var probe2 = Queries.CurrentEventsByTag("green", offset).RunWith(this.SinkProbe<EventEnvelope>(), Materializer);
        probe2.Request(10);
        Envelopes.Expect(probe2, "b", 2L, "a green leaf", "green"); // banana is not included: the offset is exclusive
        probe2.Cancel();
    }

    [Fact]
    public void ReadJournal_query_CurrentEventsByTag_should_see_all_150_events()
    {
        var a = Sys.ActorOf(QueryTestActor.Props("a"));
        for (var i = 0; i < 150; i++)
        {
            a.Tell("a green apple");
            ExpectMsg("a green apple-done");
        }

        var probe = Tagged("green");
        probe.Request(150);
        for (var i = 1; i <= 150; i++)
        {
            Envelopes.Expect(probe, "a", i, "a green apple", "green");
        }

        probe.ExpectComplete();
        probe.ExpectNoMsg(TimeSpan.FromMilliseconds(500));
    }

    [Fact]
    public void ReadJournal_query_CurrentEventsByTag_should_include_timestamp_in_EventEnvelope()
    {
        var a = Sys.ActorOf(QueryTestActor.Props("testTimestamp"));
        a.Tell("a green apple");
        ExpectMsg("a green apple-done");
        a.Tell("a black car");
        ExpectMsg("a black car-done");
        a.Tell("a green banana");
        ExpectMsg("a green banana-done");

        var probe = Tagged("green");
        probe.Request(2);
        Assert.True(probe.ExpectNext().Timestamp > 0);
        Assert.True(probe.ExpectNext().Timestamp > 0);
        probe.Cancel();
    }

    private TestSubscriber.Probe<EventEnvelope> Tagged(string tag) =>
        Queries.CurrentEventsByTag(tag, Offset.NoOffset()).RunWith(this.SinkProbe<EventEnvelope>(), Materializer);

    private void PersistScript(IActorRef a, IActorRef b, bool withCucumber, IActorRef? c)
    {
        foreach (var (actor, text) in Envelopes.GreenScript(a, b, c ?? ActorRefs.Nobody))
        {
            if (text == "a green cucumber" && !withCucumber)
            {
                continue;
            }

            actor.Tell(text);
            ExpectMsg(text + "-done");
        }
    }
}
