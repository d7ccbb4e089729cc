// Adapted from Akka.Persistence.TCK (PluginSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2018 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2018 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: each test gets its own store directory, deleted after the actor system ends.

using Akka.Configuration;
using Akka.Persistence;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>The base of the ported TCK specs: an actor system with the Stellar plugins on a fresh directory.</summary>
public abstract class PluginSpec : Akka.TestKit.Xunit2.TestKit
{
    private static int _counter;

    protected PluginSpec(string directory, Config config, string actorSystemName, ITestOutputHelper? output)
        : base(config, actorSystemName, output)
    {
        Directory = directory;
        Extension = Akka.Persistence.Persistence.Instance.Apply(Sys);
        Pid = "p-" + Interlocked.Increment(ref _counter);
        WriterGuid = Guid.NewGuid().ToString();
    }

    protected string Directory { get; }

    protected PersistenceExtension Extension { get; }

    protected string Pid { get; }

    protected string WriterGuid { get; }

    protected int ActorInstanceId { get; } = 1;

    protected void Subscribe<T>(Akka.Actor.IActorRef subscriber) => Sys.EventStream.Subscribe(subscriber, typeof(T));

    protected override void AfterAll()
    {
        base.AfterAll();
        PluginTestConfig.Delete(Directory);
    }
}
