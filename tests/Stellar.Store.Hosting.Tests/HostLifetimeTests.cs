using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Stellar.Store.Hosting.Tests;

/// <summary>
/// The store's lifetime at the edges of the host's: a start that fails after the store opened, a host disposed without
/// a stop, a second host on the same directory, writes still in flight at the stop. In each case the directory opened
/// again afterwards must hold every write that was acknowledged (the test's own list is the oracle).
/// </summary>
public sealed class HostLifetimeTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task RunAsync_WhenALaterServiceFailsToStart_ClosesTheStoreWithItsAcknowledgedWrites()
    {
        var path = _dir.Sub("store");
        using (var host = TestHosts.Build(b =>
        {
            b.Services.AddStellarStore(o =>
            {
                o.Path = path;
                o.Store = new StoreOptions { Durability = Durability.Buffered };
            });
            b.Services.AddHostedService<FailingGameService>();
        }))
        {
            await Assert.ThrowsAsync<InvalidOperationException>(() => host.RunAsync());
        }

        Assert.Equal(FailingGameService.Team.ToDictionary(p => p.Id), await TestHosts.ReadBackAsync(path));
    }

    [Fact]
    public async Task Dispose_WithoutAStop_ClosesTheStoreWithItsAcknowledgedWrites()
    {
        var path = _dir.Sub("store");
        var team = TestHosts.Team(50, "disposed");
        using (var host = TestHosts.Build(o =>
        {
            o.Path = path;
            o.Store = new StoreOptions { Durability = Durability.Buffered };
        }))
        {
            await host.StartAsync();
            var players = TestHosts.Players(host.Services.GetRequiredService<StellarStoreHost>().Store);
            await players.WriteAsync(b => team.ForEach(p => b.Upsert(p)));
        }

        Assert.Equal(team.ToDictionary(p => p.Id), await TestHosts.ReadBackAsync(path));
    }

    [Fact]
    public async Task StartAsync_OfASecondHostOnTheSameDirectory_FailsAndLeavesTheFirstHostsStoreLockedAndWhole()
    {
        var path = _dir.Sub("store");
        var team = TestHosts.Team(40, "first");
        using var first = TestHosts.Build(o => o.Path = path);
        await first.StartAsync();
        var players = TestHosts.Players(first.Services.GetRequiredService<StellarStore>());
        await players.WriteAsync(b => team.Take(20).ToList().ForEach(p => b.Upsert(p)));

        using (var second = TestHosts.Build(o => o.Path = path))
        {
            await Assert.ThrowsAsync<StoreLockedException>(() => second.StartAsync());
            await second.StopAsync();
        }

        // The second host's failure let go of nothing of the first's: the directory is still locked, the store still writes.
        await Assert.ThrowsAsync<StoreLockedException>(async () => await StellarStore.OpenAsync(path));
        await players.WriteAsync(b => team.Skip(20).ToList().ForEach(p => b.Upsert(p)));
        await first.StopAsync();
        Assert.Equal(team.ToDictionary(p => p.Id), await TestHosts.ReadBackAsync(path));
    }

    [Fact]
    public async Task StopAsync_WithWritesInFlight_KeepsEveryWriteThatSucceeded()
    {
        var path = _dir.Sub("store");
        var team = TestHosts.Team(300, "inflight");
        var writes = new List<(Player Player, Task Write)>();
        using (var host = TestHosts.Build(o =>
        {
            o.Path = path;
            o.Store = new StoreOptions { Durability = Durability.Buffered };
        }))
        {
            await host.StartAsync();
            var players = TestHosts.Players(host.Services.GetRequiredService<StellarStore>());
            writes.AddRange(team.Select(p => (p, players.UpsertAsync(p))));
            await host.StopAsync();
        }

        var succeeded = new Dictionary<int, Player>();
        foreach (var (player, write) in writes)
        {
            try
            {
                await write;
                succeeded[player.Id] = player;
            }
            catch (ObjectDisposedException)
            {
                // Refused at the close: never acknowledged, so it need not be there.
            }
        }

        var read = await TestHosts.ReadBackAsync(path);
        Assert.All(succeeded, p => Assert.Equal(p.Value, read.GetValueOrDefault(p.Key)));
    }
}
