using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Stellar.Store.Hosting.Tests;

/// <summary>
/// The hosted service with a real host and a real directory: the store opens at start, takes writes through the
/// resolved <see cref="StellarStore"/>, and is flushed and closed at stop, so the directory opened again afterwards holds
/// every write the test made (its own copy is the oracle).
/// </summary>
public sealed class HostedStoreTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task StopAsync_AfterBufferedWritesThroughTheResolvedStore_LeavesEveryWriteInTheDirectory()
    {
        var path = _dir.Sub("store");
        var team = TestHosts.Team(500, "hosted");
        using (var host = TestHosts.Build(o =>
        {
            o.Path = path;

            // Buffered promises nothing before a flush: what reopens below is there because the stop flushed and closed.
            o.Store = new StoreOptions { Durability = Durability.Buffered };
        }))
        {
            await host.StartAsync();
            var store = host.Services.GetRequiredService<StellarStore>();
            Assert.Same(store, host.Services.GetRequiredService<StellarStoreHost>().Store);
            Assert.Equal(Path.GetFullPath(path), store.Path);
            var players = TestHosts.Players(store);
            foreach (var player in team)
            {
                await players.UpsertAsync(player);
            }

            await host.StopAsync();
            Assert.Throws<ObjectDisposedException>(() => store.Snapshot());
        }

        var read = await TestHosts.ReadBackAsync(path);
        Assert.Equal(team.ToDictionary(p => p.Id), read);
    }

    [Fact]
    public async Task Store_ResolvedBeforeStart_ThrowsSayingWhenItOpensAndGetStoreAsyncCompletesAtStart()
    {
        using var host = TestHosts.Build(o => o.Path = _dir.Sub("store"));
        var accessor = host.Services.GetRequiredService<StellarStoreHost>();
        var early = Assert.Throws<InvalidOperationException>(() => host.Services.GetRequiredService<StellarStore>());
        Assert.Contains("the host has not started yet", early.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(StellarStoreHost.GetStoreAsync), early.Message, StringComparison.Ordinal);
        var waiting = accessor.GetStoreAsync();
        Assert.False(waiting.IsCompleted);

        await host.StartAsync();
        Assert.Same(host.Services.GetRequiredService<StellarStore>(), await waiting);
        await host.StopAsync();
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task GetStoreAsync_WhenTheHostEndsBeforeItsStartOpenedTheStore_FailsSayingSo(bool stop)
    {
        // A service registered before the store fails its start: the start never reaches the store, and no open follows.
        var host = TestHosts.Build(b =>
        {
            b.Services.AddHostedService<UnreachableService>();
            b.Services.AddStellarStore(o => o.Path = _dir.Sub("store"));
        });
        var waiting = host.Services.GetRequiredService<StellarStoreHost>().GetStoreAsync();

        await Assert.ThrowsAsync<TimeoutException>(() => host.StartAsync());
        if (stop)
        {
            await host.StopAsync();
        }

        host.Dispose();

        Assert.True(waiting.IsCompleted);
        var failure = await Assert.ThrowsAsync<InvalidOperationException>(() => waiting);
        Assert.Contains("stopped before it opened", failure.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(_dir.Sub("store")));
    }

    [Fact]
    public async Task StartAsync_WithARelativePath_OpensTheStoreUnderTheHostsContentRoot()
    {
        var root = _dir.Sub("app");
        Directory.CreateDirectory(root);
        using var host = TestHosts.Build(b => b.Services.AddStellarStore(o => o.Path = Path.Combine("saves", "world1")), contentRoot: root);
        await host.StartAsync();
        Assert.Equal(Path.Combine(root, "saves", "world1"), host.Services.GetRequiredService<StellarStore>().Path);
        await host.StopAsync();
    }

    [Fact]
    public async Task StartAsync_WhenTheStoreCannotOpen_FailsWithTheStoresOwnException()
    {
        var path = _dir.Sub("store");
        await using var holder = await StellarStore.OpenAsync(path);
        using var host = TestHosts.Build(o => o.Path = path);
        await Assert.ThrowsAsync<StoreLockedException>(() => host.StartAsync());
        await Assert.ThrowsAsync<StoreLockedException>(() => host.Services.GetRequiredService<StellarStoreHost>().GetStoreAsync());
    }

    [Fact]
    public async Task StartAsync_AfterAStopAndANewHost_ReopensWhatTheFirstHostWrote()
    {
        var path = _dir.Sub("store");
        var first = TestHosts.Team(100, "first");
        var second = TestHosts.Team(50, "second");
        foreach (var batch in new[] { first, second })
        {
            using var host = TestHosts.Build(o => o.Path = path);
            await host.StartAsync();
            var players = TestHosts.Players(host.Services.GetRequiredService<StellarStore>());
            await players.WriteAsync(b => batch.ForEach(p => b.Upsert(p)));
            await host.StopAsync();
        }

        var expected = first.ToDictionary(p => p.Id);
        second.ForEach(p => expected[p.Id] = p);
        Assert.Equal(expected, await TestHosts.ReadBackAsync(path));
    }

    /// <summary>A service that cannot reach what it needs and fails its start.</summary>
    private sealed class UnreachableService : IHostedService
    {
        public Task StartAsync(CancellationToken cancellationToken) => throw new TimeoutException("The matchmaking service did not answer.");

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
