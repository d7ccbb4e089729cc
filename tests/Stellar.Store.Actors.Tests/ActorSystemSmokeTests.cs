using Akka.Actor;
using Akka.TestKit.Xunit2;

namespace Stellar.Store.Actors.Tests;

public sealed class ActorSystemSmokeTests : TestKit
{
    private sealed class Echo : ReceiveActor
    {
        public Echo() => ReceiveAny(m => Sender.Tell(m));
    }

    [Fact]
    public void ActorSystem_StartsAnActor_AndRepliesToTell()
    {
        var echo = Sys.ActorOf(Props.Create(() => new Echo()), "echo");
        echo.Tell("ping", TestActor);
        ExpectMsg("ping");
    }

    [Fact]
    public async Task ActorSystem_Terminate_Completes()
    {
        using var system = ActorSystem.Create("smoke");
        await system.Terminate().WaitAsync(TimeSpan.FromSeconds(30));
        Assert.True(system.WhenTerminated.IsCompleted);
    }
}
