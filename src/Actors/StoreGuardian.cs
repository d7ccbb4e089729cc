using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>
/// The parent of a store's writer actors. A writer that throws is stopped, not restarted: a restarted writer
/// would have forgotten its failed group, and the design never lets a collection silently lose writes.
/// </summary>
internal sealed class StoreGuardian : ReceiveActor
{
    /// <summary>Creates the guardian.</summary>
    public StoreGuardian()
    {
        Receive<GuardianProtocol.StartWriter>(m => Sender.Tell(Context.ActorOf(m.WriterProps(), m.Name)));
    }

    /// <summary>Props for a guardian.</summary>
    public static Props Props() => Akka.Actor.Props.Create(() => new StoreGuardian());

    /// <inheritdoc />
    protected override SupervisorStrategy SupervisorStrategy() => new OneForOneStrategy(_ => Directive.Stop);
}
