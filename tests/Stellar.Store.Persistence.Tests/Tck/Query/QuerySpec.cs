// Adapted from the Query specs of Akka.Persistence.TCK of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2022 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2025 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: one base for the six specs, with the Stellar journal on a fresh directory and the TCK's tagger bound.

using Akka.Actor;
using Akka.Persistence.Query;
using Akka.Streams;
using Stellar.Store.Persistence.Query;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>The base of the ported query specs: an actor system with the Stellar journal, its read journal and a materializer.</summary>
public abstract class QuerySpec : Akka.TestKit.Xunit2.TestKit
{
    private readonly string _directory;

    protected QuerySpec(string directory, string actorSystemName, ITestOutputHelper output)
        : base(PluginTestConfig.For(directory, extra: $$"""
            akka.persistence.journal.stellar.event-adapters.color-tagger = "{{typeof(ColorFruitTagger).AssemblyQualifiedName}}"
            akka.persistence.journal.stellar.event-adapter-bindings."System.String" = color-tagger
            """), actorSystemName, output)
    {
        _directory = directory;
        Materializer = Sys.Materializer();
        ReadJournal = PersistenceQuery.Get(Sys).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
    }

    protected ActorMaterializer Materializer { get; }

    protected IReadJournal ReadJournal { get; }

    /// <summary>A <see cref="QueryTestActor"/> for <paramref name="persistenceId"/> that has persisted "{id}-1" to "{id}-{n}".</summary>
    protected IActorRef Setup(string persistenceId, int n)
    {
        var actor = Sys.ActorOf(QueryTestActor.Props(persistenceId));
        for (var i = 1; i <= n; i++)
        {
            actor.Tell($"{persistenceId}-{i}");
            ExpectMsg($"{persistenceId}-{i}-done");
        }

        return actor;
    }

    protected override void AfterAll()
    {
        Materializer.Dispose();
        base.AfterAll();
        PluginTestConfig.Delete(_directory);
    }
}
