using Akka.Actor;
using Akka.Persistence.Query;
using Akka.Streams.TestKit;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>The checks and the script of events the by-tag specs share.</summary>
internal static class Envelopes
{
    /// <summary>The TCK's events for the offset cases: hello, a green apple, a black car, something else, a green banana, a green leaf, a green cucumber.</summary>
    public static IEnumerable<(IActorRef Actor, string Text)> GreenScript(IActorRef a, IActorRef b, IActorRef c) =>
    [
        (a, "hello"),
        (a, "a green apple"),
        (b, "a black car"),
        (a, "something else"),
        (a, "a green banana"),
        (b, "a green leaf"),
        (c, "a green cucumber"),
    ];

    public static EventEnvelope Expect(TestSubscriber.Probe<EventEnvelope> probe, string persistenceId, long sequenceNr, string @event, string tag) =>
        Expect(probe.ExpectNext(), persistenceId, sequenceNr, @event, tag);

    public static EventEnvelope Expect(EventEnvelope envelope, string persistenceId, long sequenceNr, string @event, string tag)
    {
        Assert.Equal(persistenceId, envelope.PersistenceId);
        Assert.Equal(sequenceNr, envelope.SequenceNr);
        Assert.Equal(@event, envelope.Event);
        Assert.Contains(tag, envelope.Tags);
        return envelope;
    }
}
