using Akka.Actor;
using Akka.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Stellar.Store.Hosting.Tests;

/// <summary>
/// <c>AddAkka(...).WithStellarStore()</c>: the store's writer actors live in the host's actor system, found there by
/// their paths, and the store's writes survive the host's stop whichever of the two hosted services stops first (the
/// one registered last stops first: the store's own stop, or Akka's <c>CoordinatedShutdown</c>).
/// </summary>
public sealed class AkkaHostingTests : IDisposable
{
    private static readonly TimeSpan AskTimeout = TimeSpan.FromSeconds(30);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task WithStellarStore_RunsTheWritersAsChildrenInTheHostsActorSystemAndTheStopKeepsEveryWrite(bool storeRegisteredFirst)
    {
        var path = _dir.Sub("store");
        var team = TestHosts.Team(200, "akka");
        using (var host = TestHosts.Build(b =>
        {
            if (storeRegisteredFirst)
            {
                b.Services.AddStellarStore(o => o.Path = path);
            }

            b.Services.AddAkka("game-host", akka => akka.WithStellarStore());
            if (!storeRegisteredFirst)
            {
                b.Services.AddStellarStore(o => o.Path = path);
            }
        }))
        {
            await host.StartAsync();
            var system = host.Services.GetRequiredService<ActorSystem>();
            var store = host.Services.GetRequiredService<StellarStore>();
            Assert.Same(system, store.Options.ActorSystem);
            var players = TestHosts.Players(store);
            await players.WriteAsync(b => team.ForEach(p => b.Upsert(p)));

            // The store's guardian is a child of /user in the host's system, and the collection's writer is its child.
            var writer = await WriterUnderUserAsync(system);
            Assert.Equal("game-host", writer.Path.Address.System);
            Assert.StartsWith("stellar-store-", writer.Path.Parent.Name, StringComparison.Ordinal);
            Assert.Equal("user", writer.Path.Parent.Parent.Name);

            await host.StopAsync();
            Assert.True(system.WhenTerminated.IsCompleted, "Akka.Hosting's stop terminates its system");
        }

        Assert.Equal(team.ToDictionary(p => p.Id), await TestHosts.ReadBackAsync(path));
    }

    [Fact]
    public async Task AddAkka_WithoutWithStellarStore_LeavesTheWritersInTheStoresOwnSystem()
    {
        using var host = TestHosts.Build(b =>
        {
            b.Services.AddAkka("game-host", _ => { });
            b.Services.AddStellarStore(o => o.Path = _dir.Sub("store"));
        });
        await host.StartAsync();
        var store = host.Services.GetRequiredService<StellarStore>();
        await TestHosts.Players(store).InsertAsync(new Player(1, "own", 1));
        Assert.Null(store.Options.ActorSystem);
        await host.StopAsync();
    }

    /// <summary>An actor two levels under <c>/user</c> whose name is a writer's (<c>c</c> and the collection's id).</summary>
    private static Task<IActorRef> WriterUnderUserAsync(ActorSystem system) => system.ActorSelection("/user/*/c*").ResolveOne(AskTimeout);
}
