// Adapted from Akka.Persistence.TCK (Performance/JournalPerfSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2020 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2020 .NET Foundation <https://github.com/akkadotnet/akka.net>

using Akka.Actor;
using Akka.Persistence;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>Persists each command in its mode, checks that handlers and recovery see them in order, and replies after the last.</summary>
internal sealed class BenchActor(string persistenceId, IActorRef replyTo, int replyAfter) : UntypedPersistentActor
{
    private const int BatchSize = 50;
    private int _counter;
    private List<Cmd> _batch = new(BatchSize);

    public override string PersistenceId { get; } = persistenceId;

    protected override void OnRecover(object message)
    {
        if (message is Cmd c)
        {
            Count(c);
        }
    }

    protected override void OnCommand(object message)
    {
        switch (message)
        {
            case Cmd { Mode: "p" } c:
                Persist(c, Count);
                break;
            case Cmd { Mode: "pa" } c:
                PersistAsync(c, Count);
                break;
            case Cmd { Mode: "pb" or "pba" } c:
                _batch.Add(c);
                if (_batch.Count % BatchSize == 0)
                {
                    if (c.Mode == "pb")
                    {
                        PersistAll(_batch, Count);
                    }
                    else
                    {
                        PersistAllAsync(_batch, Count);
                    }

                    _batch = new List<Cmd>(BatchSize);
                }

                break;
            case ResetCounter:
                _counter = 0;
                break;
        }
    }

    private void Count(Cmd c)
    {
        _counter++;
        if (c.Payload != _counter)
        {
            throw new ArgumentException($"Expected to receive [{_counter}] yet got: [{c.Payload}]");
        }

        if (_counter == replyAfter)
        {
            replyTo.Tell(c.Payload);
        }
    }
}
