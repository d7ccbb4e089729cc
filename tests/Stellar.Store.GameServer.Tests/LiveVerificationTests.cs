using System.Net;
using Stellar.Store.Samples.GameServer.Bots;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Server;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// While bots play and units commit across the economy's collections, every store snapshot is a consistent cut: the
/// verifier, reading each collection through it, never sees half a unit.
/// </summary>
public sealed class LiveVerificationTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Verify_WhileBotsPlay_PassesAtEverySnapshot()
    {
        await using var store = await StellarGameStore.OpenAsync(_dir.Path, Durability.WriteThrough);
        var server = new TcpGameServer(store, new IPEndPoint(IPAddress.Loopback, 0));
        var report = new BotReport();
        var checks = 0;
        try
        {
            server.Start();
            var bots = BotDriver.RunAsync(server.EndPoint, 20, TimeSpan.FromSeconds(4), report, CancellationToken.None);
            while (!bots.IsCompleted)
            {
                var verification = store.Verify();
                Assert.True(verification.Ok, string.Join(Environment.NewLine, verification.Failures));
                checks++;
                await Task.Delay(10);
            }

            await bots;
        }
        finally
        {
            await server.StopAsync();
        }

        Assert.Null(server.Tracker.Fault);
        Assert.NotEmpty(report.AcknowledgedTrades);
        Assert.True(checks > 1, $"only {checks} snapshots were checked during play");
    }
}
