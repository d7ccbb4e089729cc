using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>
/// The parent of a store's writer actors. A writer that throws is stopped, not restarted: a restarted writer
/// would have forgotten its failed group, and the design never lets a collection silently lose writes. A writer faults
/// its collection on whatever throws on its turn instead of throwing, so this strategy is only the last line.
/// </summary>
/// <remarks>
/// A start that fails is answered with its failure rather than thrown: a guardian that threw would be restarted, and
/// a restart stops every writer it holds, those of the collections already open included.
/// </remarks>
internal sealed class StoreGuardian : ReceiveActor
{
    /// <summary>Who waits for each stopping writer to be gone.</summary>
    private readonly Dictionary<IActorRef, List<IActorRef>> _stopping = new();

    /// <summary>Whether each writer gets a thread of its own (the <see cref="StoreDispatcher"/>) rather than the pool.</summary>
    private readonly bool _dedicated;

    /// <summary>Creates the guardian; with <paramref name="dedicated"/>, its writers run on threads of their own.</summary>
    public StoreGuardian(bool dedicated)
    {
        _dedicated = dedicated;
        Receive<GuardianProtocol.StartWriter>(Start);
        Receive<GuardianProtocol.StopWriter>(Stop);
        Receive<Terminated>(Stopped);
    }

    /// <summary>Props for a guardian whose writers run on the thread pool, as it does.</summary>
    public static Props Props() => Akka.Actor.Props.Create(() => new StoreGuardian(dedicated: false));

    /// <summary>
    /// Props for a guardian that runs, with each of its writers, on a thread of its own (the <see cref="StoreDispatcher"/>,
    /// registered first on <paramref name="system"/>).
    /// </summary>
    public static Props DedicatedProps(ActorSystem system)
    {
        StoreDispatcher.Register(system);
        return Akka.Actor.Props.Create(() => new StoreGuardian(dedicated: true)).WithDispatcher(StoreDispatcher.Id);
    }

    /// <inheritdoc />
    protected override SupervisorStrategy SupervisorStrategy() => new OneForOneStrategy(_ => Directive.Stop);

    private void Start(GuardianProtocol.StartWriter start)
    {
        try
        {
            var props = start.WriterProps();
            Sender.Tell(Context.ActorOf(_dedicated ? props.WithDispatcher(StoreDispatcher.Id) : props, start.Name));
        }
        catch (Exception e)
        {
            Sender.Tell(new Status.Failure(e));
        }
    }

    private void Stop(GuardianProtocol.StopWriter stop)
    {
        var writer = Context.Child(stop.Name);
        if (writer.IsNobody())
        {
            Sender.Tell(new GuardianProtocol.WriterStopped(stop.Name));
            return;
        }

        // The parent hears of a child's end after it has freed the child's name, so the reply comes when a new writer
        // of that name can start. A writer stopping already is watched all the same: Terminated comes once it is gone.
        if (!_stopping.TryGetValue(writer, out var waiting))
        {
            _stopping[writer] = waiting = new List<IActorRef>();
            Context.Watch(writer);
            Context.Stop(writer);
        }

        waiting.Add(Sender);
    }

    private void Stopped(Terminated terminated)
    {
        if (_stopping.Remove(terminated.ActorRef, out var waiting))
        {
            foreach (var requester in waiting)
            {
                requester.Tell(new GuardianProtocol.WriterStopped(terminated.ActorRef.Path.Name));
            }
        }
    }
}
