using System.Collections.Immutable;
using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>Events written straight to a journal actor, as a persistent actor's <c>Persist</c> sends them, for tests that watch the journal's answers.</summary>
internal static class JournalWrites
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);

    /// <summary>Random text, <paramref name="guids"/> GUIDs long, which compression cannot shrink much: events that fill a disk.</summary>
    public static string Incompressible(int guids) => string.Concat(Enumerable.Range(0, guids).Select(_ => Guid.NewGuid().ToString("N")));

    /// <summary>
    /// Writes event <paramref name="sequenceNr"/> of <paramref name="persistenceId"/>; returns null when the journal
    /// acknowledged it, else the cause of its failure (the event's own answer is checked to agree).
    /// </summary>
    public static async Task<Exception?> WriteAsync(IActorRef journal, Inbox inbox, string persistenceId, long sequenceNr, object payload)
    {
        var persistent = new Persistent(payload, sequenceNr, persistenceId, string.Empty, false, ActorRefs.NoSender, "writer");
        journal.Tell(new WriteMessages([new AtomicWrite(ImmutableList.Create<IPersistentRepresentation>(persistent))], inbox.Receiver, 1));
        switch (await inbox.ReceiveAsync(Wait))
        {
            case WriteMessagesSuccessful:
                Assert.IsType<WriteMessageSuccess>(await inbox.ReceiveAsync(Wait));
                return null;
            case WriteMessagesFailed failed:
                Assert.IsType<WriteMessageFailure>(await inbox.ReceiveAsync(Wait));
                return failed.Cause;
            case var other:
                throw new InvalidOperationException($"The journal answered a write with {other}.");
        }
    }
}
