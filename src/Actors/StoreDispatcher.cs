using Akka.Actor;
using Akka.Configuration;
using Akka.Dispatch;

namespace Stellar.Store.Actors;

/// <summary>
/// Where a store's writer actors run when they get threads of their own (<c>StoreOptions.DedicatedThreads</c>): each on
/// a thread of its own (Akka's <see cref="PinnedDispatcher"/>), not on the .NET thread pool.
/// </summary>
/// <remarks>
/// <para>Why: on the pool, an actor's turn waits in the pool's queue behind everything else queued there. A game that
/// waits synchronously for its writes on pool threads (sync over async) then holds pool threads that wait for a
/// writer whose turn waits for a free pool thread: the pool grows a thread at a time, and where its size is capped the
/// writes never complete. On threads of their own the writers take their turns whatever the pool is doing.</para>
/// <para>The store registers the dispatcher on the actor system it runs in, its own or the game's, unless that
/// system's configuration has a section of this id already: a game that must run the writers elsewhere defines
/// <c>stellar-store.dispatcher</c> in its configuration.</para>
/// <para>Thread safety: any thread.</para>
/// </remarks>
internal static class StoreDispatcher
{
    /// <summary>The dispatcher's id (a path in the actor system's configuration).</summary>
    public const string Id = "stellar-store.dispatcher";

    /// <summary>
    /// One thread per actor, as Akka's own pinned dispatcher configures it, which ends as soon as its actor stops (a
    /// dispatcher waits a second by default, for another actor that never comes, holding the stopped one and so its
    /// closed store meanwhile); the rest as the system's default dispatcher.
    /// </summary>
    private const string OwnThread = """
        shutdown-timeout = 0s
        executor = fork-join-executor
        fork-join-executor {
          parallelism-min = 1
          parallelism-factor = 1.0
          parallelism-max = 1
        }
        """;

    /// <summary>Makes <see cref="Id"/> known to <paramref name="system"/>: a thread per actor, unless its configuration defines the id.</summary>
    public static void Register(ActorSystem system)
    {
        if (system.Dispatchers.HasDispatcher(Id))
        {
            return;
        }

        var config = ConfigurationFactory.ParseString($"id = \"{Id}\"\n{OwnThread}")
            .WithFallback(system.Settings.Config.GetConfig("akka.actor.default-dispatcher"));

        // Two stores registering on one system at once: the first registration is kept, the second is the same dispatcher.
        system.Dispatchers.RegisterConfigurator(Id, new OwnThreadConfigurator(config, system.Dispatchers.Prerequisites));
    }

    /// <summary>Makes a <see cref="PinnedDispatcher"/>, so a thread, for each actor that asks for the dispatcher.</summary>
    private sealed class OwnThreadConfigurator : MessageDispatcherConfigurator
    {
        private readonly ExecutorServiceConfigurator _executor;

        public OwnThreadConfigurator(Config config, IDispatcherPrerequisites prerequisites)
            : base(config, prerequisites) => _executor = ConfigureExecutor();

        public override MessageDispatcher Dispatcher() => new PinnedDispatcher(
            this, Config.GetString("id"), Config.GetInt("throughput"), Config.GetTimeSpan("throughput-deadline-time").Ticks, _executor, Config.GetTimeSpan("shutdown-timeout"));
    }
}
