using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;

namespace Stellar.Store.Hosting.Tests;

/// <summary>
/// The health check in a real host over a real directory, wrapped in the fault-injecting storage of
/// Stellar.Store.Testing: healthy while every collection takes writes, unhealthy once a failed append faulted one or an
/// automatic compaction failed, naming the collection.
/// </summary>
public sealed class HealthCheckTests : IDisposable
{
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(1);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private IHost HostOver(FaultInjectingStorage storage, StoreOptions options) => TestHosts.Build(b =>
    {
        b.Services.AddStellarStore(o =>
        {
            o.Path = _dir.Sub("store");
            o.Store = options;
            o.Open = (_, storeOptions, cancellationToken) => storage.OpenStoreAsync(storeOptions, cancellationToken);
        });
        b.Services.AddHealthChecks().AddStellarStore();
    });

    private static async Task<HealthReportEntry> CheckAsync(IHost host) =>
        (await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync()).Entries["stellar-store"];

    [Fact]
    public async Task Check_BeforeStart_IsUnhealthyBecauseTheStoreIsNotOpen()
    {
        using var host = HostOver(new FaultInjectingStorage(_dir.Sub("store")), new StoreOptions());
        var entry = await CheckAsync(host);
        Assert.Equal(HealthStatus.Unhealthy, entry.Status);
        Assert.Equal("The store is not open.", entry.Description);
    }

    [Fact]
    public async Task Check_AfterTheStop_IsUnhealthyBecauseTheStoreIsClosed()
    {
        using var host = HostOver(new FaultInjectingStorage(_dir.Sub("store")), new StoreOptions());
        await host.StartAsync();
        Assert.Equal(HealthStatus.Healthy, (await CheckAsync(host)).Status);
        await host.StopAsync();
        var entry = await CheckAsync(host);
        Assert.Equal(HealthStatus.Unhealthy, entry.Status);
        Assert.Equal("The store is closed.", entry.Description);
    }

    [Fact]
    public async Task Check_WhenAnAppendFails_TurnsFromHealthyToUnhealthyNamingTheFaultedCollection()
    {
        var storage = new FaultInjectingStorage(_dir.Sub("store"));
        using var host = HostOver(storage, new StoreOptions());
        await host.StartAsync();
        var store = host.Services.GetRequiredService<StellarStore>();
        var players = TestHosts.Players(store);
        var guilds = store.GetCollection<int, Player>("guilds", p => p.Id);
        await players.InsertAsync(new Player(1, "kept", 1));
        await guilds.InsertAsync(new Player(1, "guild", 1));
        Assert.Equal(HealthStatus.Healthy, (await CheckAsync(host)).Status);

        storage.FailAppendAt = storage.AppendCount + 1;
        var failed = await Assert.ThrowsAsync<StoreFaultedException>(() => players.InsertAsync(new Player(2, "lost", 2)));

        var entry = await CheckAsync(host);
        Assert.Equal(HealthStatus.Unhealthy, entry.Status);
        Assert.Same(failed, entry.Exception);
        Assert.StartsWith("'players' faulted: ", entry.Description, StringComparison.Ordinal);
        Assert.Equal(["players"], entry.Data.Keys);

        // The faulted collection cannot flush, so the stop reports it; the store is closed all the same.
        var stop = await Record.ExceptionAsync(() => host.StopAsync());
        Assert.IsType<StoreFaultedException>(stop is AggregateException all ? Assert.Single(all.Flatten().InnerExceptions) : stop);
        Assert.Throws<ObjectDisposedException>(() => store.Snapshot());
    }

    [Fact]
    public async Task Check_WhenAnAutomaticCompactionFails_IsUnhealthyNamingTheCollectionAndTheError()
    {
        // Only a compaction renames (its finished output into place), so the first rename is a compaction's.
        var storage = new FaultInjectingStorage(_dir.Sub("store")) { FailRenameAt = 1 };
        using var host = HostOver(storage, new StoreOptions { MaxShardBytes = 64 * 1024, CompactionThreshold = 0.5 });
        await host.StartAsync();
        var players = TestHosts.Players(host.Services.GetRequiredService<StellarStore>());
        await players.InsertAsync(new Player(0, "first", 0));
        Assert.Equal(HealthStatus.Healthy, (await CheckAsync(host)).Status);

        // Each round overwrites every key, so the live share keeps falling and automatic compactions keep being started
        // in the background; the rounds go on until the check sees one fail.
        var deadline = DateTime.UtcNow + HangTimeout;
        var entry = await CheckAsync(host);
        for (var round = 1; entry.Status == HealthStatus.Healthy && DateTime.UtcNow < deadline; round++)
        {
            await players.WriteAsync(b => TestHosts.Team(200, $"round-{round}").ForEach(p => b.Upsert(p)));
            entry = await CheckAsync(host);
        }

        Assert.Equal(HealthStatus.Unhealthy, entry.Status);
        Assert.IsType<IOException>(entry.Exception);
        Assert.StartsWith("'players' last automatic compaction failed: ", entry.Description, StringComparison.Ordinal);

        // A failed compaction leaves the collection usable: it still takes writes, and the stop flushes and closes.
        await players.UpsertAsync(new Player(0, "after", 1));
        await host.StopAsync();
        Assert.Equal(new Player(0, "after", 1), (await TestHosts.ReadBackAsync(_dir.Sub("store"), new StoreOptions { MaxShardBytes = 64 * 1024 }))[0]);
    }
}
