// Adapted from Akka.Persistence.TCK (Query/TestActor.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2019 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2019 .NET Foundation <https://github.com/akkadotnet/akka.net>

using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>Persists each string it gets and answers "{event}-done"; deletes on <see cref="DeleteCommand"/> and answers "{n}-deleted".</summary>
internal sealed class QueryTestActor : UntypedPersistentActor, IWithUnboundedStash
{
    public QueryTestActor(string persistenceId) => PersistenceId = persistenceId;

    public override string PersistenceId { get; }

    public static Props Props(string persistenceId) => Akka.Actor.Props.Create(() => new QueryTestActor(persistenceId));

    protected override void OnRecover(object message)
    {
    }

    protected override void OnCommand(object message)
    {
        switch (message)
        {
            case DeleteCommand delete:
                DeleteMessages(delete.ToSequenceNr);
                Become(WhileDeleting(Sender));
                break;
            case string command:
                var sender = Sender;
                Persist(command, e => sender.Tell($"{e}-done"));
                break;
        }
    }

    private Receive WhileDeleting(IActorRef originalSender) => message =>
    {
        switch (message)
        {
            case DeleteMessagesSuccess success:
                originalSender.Tell($"{success.ToSequenceNr}-deleted");
                Become(OnCommand);
                Stash.UnstashAll();
                break;
            case DeleteMessagesFailure failure:
                originalSender.Tell($"{failure.ToSequenceNr}-deleted-failed");
                Become(OnCommand);
                Stash.UnstashAll();
                break;
            default:
                Stash.Stash();
                break;
        }

        return true;
    };
}
