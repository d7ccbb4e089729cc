using System.Diagnostics;
using System.Globalization;
using Stellar.Store.Samples.GameServer.Bots;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// The server runs as a child process with bots in this process; the child is killed (SIGKILL) in the middle of
/// play, while units across the accounts, characters, items, ledger and trades collections are in flight. The
/// reopened store must hold no part of a unit without the rest: gold equals the ledger, every item is in exactly one
/// inventory, every ledger leg has its trade, every account its character; and every trade the server acknowledged
/// before it died is there. The sessions of the players who were online stay behind, each of a stored character,
/// until their lease ends.
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

    [Fact]
    public async Task Server_WhenKilledMidPlay_LeavesSessionsOfStoredCharactersThatLapseWhenTheirLeaseEnds()
    {
        var lease = TimeSpan.FromMinutes(10);
        var acknowledged = await KillMidPlayAsync(tradesBeforeKill: 10, "--session-lease", lease.TotalSeconds.ToString("F0", CultureInfo.InvariantCulture));

        // Reopened at once, the store holds the sessions of the players who were online (the verifier checks that each
        // names a stored character); reopened with the clock past every lease, none, and no code removed them.
        var economy = (await StoreVerifier.VerifyAsync(_dir.Path, acknowledged)).Economy;
        Assert.True(economy.Ok, string.Join(Environment.NewLine, economy.Failures));
        Assert.True(economy.Sessions > 0, "no session was left by the players who were online");

        var clock = new TestClock(DateTimeOffset.UtcNow + lease);
        var store = await StellarStore.OpenAsync(_dir.Path, StellarGameStore.Options(Durability.WriteThrough, clock));
        await using var game = await StellarGameStore.OverAsync(store);
        var later = game.Verify(acknowledged);
        Assert.True(later.Ok, string.Join(Environment.NewLine, later.Failures));
        Assert.Equal((0, economy.Characters, economy.TotalGold), (later.Sessions, later.Characters, later.TotalGold));
    }

    private async Task KillMidPlayAndVerifyAsync(int tradesBeforeKill)
    {
        var acknowledged = await KillMidPlayAsync(tradesBeforeKill);
        var verification = await StoreVerifier.VerifyAsync(_dir.Path, acknowledged);
        var economy = verification.Economy;
        Assert.True(economy.Ok, string.Join(Environment.NewLine, economy.Failures));
        Assert.True(economy.Trades >= acknowledged.Length);
        Assert.True(economy.Accounts > 0 && economy.Accounts == economy.Characters, $"{economy.Accounts} accounts, {economy.Characters} characters");
    }

    /// <summary>Runs the server with <paramref name="arguments"/> and 20 bots, kills it once the bots have <paramref name="tradesBeforeKill"/> trades acknowledged, and returns those.</summary>
    private async Task<long[]> KillMidPlayAsync(int tradesBeforeKill, params string[] arguments)
    {
        var report = new BotReport();
        using var stopBots = new CancellationTokenSource();
        Task bots;
        using (var server = GameServerProcess.Start(["--serve", "--port", "0", "--data", _dir.Path, "--durability", "WriteThrough", .. arguments]))
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
        return report.AcknowledgedTrades.ToArray();
    }
}
