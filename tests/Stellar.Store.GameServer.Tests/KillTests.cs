using System.Diagnostics;
using Stellar.Store.Samples.GameServer.Bots;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// The server runs as a child process with bots in this process; the child is killed (SIGKILL) in the middle of
/// play, while units across the accounts, characters, items, ledger and trades collections are in flight. The
/// reopened store must hold no part of a unit without the rest: gold equals the ledger, every item is in exactly one
/// inventory, every ledger leg has its trade, every account its character; and every trade the server acknowledged
/// before it died is there.
/// </summary>
public sealed class KillTests : IDisposable
{
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan PlayTimeout = TimeSpan.FromSeconds(60);
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Server_WhenKilledMidPlay_KeepsEveryAcknowledgedTradeAndNoPartOfAUnit()
    {
        var rounds = Stress.Enabled ? 10 : 1;
        for (var round = 0; round < rounds; round++)
        {
            // The same directory every round: each one recovers what the previous kill left, then plays on.
            await KillMidPlayAndVerifyAsync(tradesBeforeKill: 30 + (round * 17));
        }
    }

    private async Task KillMidPlayAndVerifyAsync(int tradesBeforeKill)
    {
        var report = new BotReport();
        using var stopBots = new CancellationTokenSource();
        Task bots;
        using (var server = GameServerProcess.Start("--serve", "--port", "0", "--data", _dir.Path, "--durability", "WriteThrough"))
        {
            var endpoint = await server.WaitUntilListeningAsync(StartTimeout);
            bots = BotDriver.RunAsync(endpoint, 20, TimeSpan.FromMinutes(10), report, stopBots.Token);

            var waiting = Stopwatch.StartNew();
            while (report.AcknowledgedTrades.Count < tradesBeforeKill)
            {
                Assert.True(waiting.Elapsed < PlayTimeout,
                    $"only {report.AcknowledgedTrades.Count} trades acknowledged within {PlayTimeout}. Server output: {server.Output}");
                Assert.False(bots.IsCompleted, $"the bots stopped early. Server output: {server.Output}");
                await Task.Delay(10);
            }

            server.Kill();
        }

        // Every bot loses its connection; none may hang.
        stopBots.CancelAfter(PlayTimeout);
        await bots.WaitAsync(PlayTimeout + PlayTimeout);
        Assert.True(report.LostConnections > 0, "the kill landed after play ended");

        var acknowledged = report.AcknowledgedTrades.ToArray();
        var verification = await StoreVerifier.VerifyAsync(_dir.Path, acknowledged);
        var economy = verification.Economy;
        Assert.True(economy.Ok, string.Join(Environment.NewLine, economy.Failures));
        Assert.True(economy.Trades >= acknowledged.Length);
        Assert.True(economy.Accounts > 0 && economy.Accounts == economy.Characters, $"{economy.Accounts} accounts, {economy.Characters} characters");
    }
}
