using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.TestHost;

/// <summary>Persists <c>e1</c>, <c>e2</c>, ... without end, reporting each acknowledged event on standard output.</summary>
internal sealed class CountingActor : UntypedPersistentActor
{
    /// <summary>The command to persist the next event.</summary>
    private const string NextCommand = "next";

    private long _count;

    public CountingActor(string persistenceId) => PersistenceId = persistenceId;

    public override string PersistenceId { get; }

    protected override void OnRecover(object message)
    {
        switch (message)
        {
            case string:
                _count++;
                break;
            case RecoveryCompleted:
                Console.WriteLine($"ready {PersistenceId} {_count}");
                Self.Tell(NextCommand);
                break;
        }
    }

    protected override void OnCommand(object message)
    {
        if (NextCommand.Equals(message))
        {
            Persist($"e{_count + 1}", e =>
            {
                _count++;
                Console.WriteLine($"ack {PersistenceId} {_count}");
                Self.Tell(NextCommand);
            });
        }
    }
}
