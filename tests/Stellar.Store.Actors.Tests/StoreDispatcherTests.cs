using Akka.Actor;
using Akka.Configuration;
using Akka.TestKit.Xunit2;

namespace Stellar.Store.Actors.Tests;

/// <summary>
/// Where the store's actors run (<see cref="StoreDispatcher"/>): on a thread of their own each, off the .NET thread
/// pool, unless the actor system's configuration names another dispatcher for them.
/// </summary>
public sealed class StoreDispatcherTests : TestKit
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(10);

    /// <summary>Answers every message with the thread it ran on.</summary>
    private sealed class ThreadReporter : ReceiveActor
    {
        public ThreadReporter() => ReceiveAny(_ => Sender.Tell((Environment.CurrentManagedThreadId, Thread.CurrentThread.IsThreadPoolThread)));
    }

    [Fact]
    public async Task Register_OnASystemWithoutIt_RunsEachActorOnAThreadOfItsOwnOffThePool()
    {
        StoreDispatcher.Register(Sys);
        var first = Sys.ActorOf(Props.Create(() => new ThreadReporter()).WithDispatcher(StoreDispatcher.Id));
        var second = Sys.ActorOf(Props.Create(() => new ThreadReporter()).WithDispatcher(StoreDispatcher.Id));

        var a1 = await first.Ask<(int Id, bool Pool)>("where", Wait);
        var b1 = await second.Ask<(int Id, bool Pool)>("where", Wait);
        var a2 = await first.Ask<(int Id, bool Pool)>("where", Wait);

        Assert.False(a1.Pool);
        Assert.False(b1.Pool);
        Assert.NotEqual(a1.Id, b1.Id);
        Assert.Equal(a1.Id, a2.Id);
    }

    [Fact]
    public async Task Register_WhenTheSystemsConfigurationDefinesTheId_KeepsTheConfiguredDispatcher()
    {
        var config = ConfigurationFactory.ParseString("stellar-store.dispatcher { type = Dispatcher }");
        using var system = ActorSystem.Create("configured", config.WithFallback(Sys.Settings.Config));
        try
        {
            StoreDispatcher.Register(system);
            var actor = system.ActorOf(Props.Create(() => new ThreadReporter()).WithDispatcher(StoreDispatcher.Id));

            var ran = await actor.Ask<(int Id, bool Pool)>("where", Wait);

            Assert.True(ran.Pool);
        }
        finally
        {
            await system.Terminate().WaitAsync(Wait);
        }
    }

    [Fact]
    public void Register_Twice_KeepsTheFirstRegistration()
    {
        StoreDispatcher.Register(Sys);
        var before = Sys.Dispatchers.Lookup(StoreDispatcher.Id);

        StoreDispatcher.Register(Sys);

        Assert.IsType<Akka.Dispatch.PinnedDispatcher>(before);
        Assert.IsType<Akka.Dispatch.PinnedDispatcher>(Sys.Dispatchers.Lookup(StoreDispatcher.Id));
    }
}
