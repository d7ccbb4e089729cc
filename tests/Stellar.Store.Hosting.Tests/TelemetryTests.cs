using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Stellar.Store.Hosting.Tests;

/// <summary>
/// A hosted store reports through the host's logging and metrics: its events reach a provider the host's logging was
/// given, and its instruments belong to a meter of the host's <see cref="IMeterFactory"/>, unless the options name
/// their own.
/// </summary>
public sealed class TelemetryTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task AddStellarStore_InAHost_LogsThroughTheHostsLoggingAndMetersThroughItsMeterFactory()
    {
        var logs = new CapturingLoggerProvider();
        using var host = TestHosts.Build(b =>
        {
            b.Logging.AddProvider(logs);
            b.Services.AddStellarStore(o => o.Path = _dir.Sub("store"));
        });
        using var recorder = new MetricRecorder(host.Services.GetRequiredService<IMeterFactory>());

        await host.StartAsync();
        var players = TestHosts.Players(host.Services.GetRequiredService<StellarStore>());
        foreach (var player in TestHosts.Team(3, "metered"))
        {
            await players.InsertAsync(player);
        }

        await host.StopAsync();

        var opened = Assert.Single(logs.WithId(StoreLogEvents.StoreOpened));
        Assert.Equal(StoreTelemetry.LoggerCategory, opened.Category);
        Assert.Single(logs.WithId(StoreLogEvents.StoreClosed));
        var writes = recorder.Of("stellar.store.writes").Where(m => (string?)m.Tag("collection") == "players");
        Assert.Equal(3, writes.Sum(m => m.Value));
    }

    [Fact]
    public async Task AddStellarStore_WithALoggerFactoryInTheOptions_LogsThereAndNotToTheHost()
    {
        var hosts = new CapturingLoggerProvider();
        var own = new CapturingLoggerProvider();
        using var ownFactory = own.CreateFactory();
        using var host = TestHosts.Build(b =>
        {
            b.Logging.AddProvider(hosts);
            b.Services.AddStellarStore(o =>
            {
                o.Path = _dir.Sub("store");
                o.Store = new StoreOptions { LoggerFactory = ownFactory };
            });
        });

        await host.StartAsync();
        await host.StopAsync();

        Assert.Single(own.WithId(StoreLogEvents.StoreOpened));
        Assert.Empty(hosts.WithId(StoreLogEvents.StoreOpened));
    }
}
