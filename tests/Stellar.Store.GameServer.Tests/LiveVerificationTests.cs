using System.Net;
using Stellar.Store.Samples.GameServer.Bots;
using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Server;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// While bots play and units commit across the economy's collections, every store snapshot is a consistent cut: the
/// verifier, reading each collection through it, never sees half a unit, even when it reads the ledger long after
/// the characters.
/// </summary>
public sealed class LiveVerificationTests : IDisposable
{
    /// <summary>Long enough for several ticks' units to commit between reading the characters and the ledger.</summary>
    private static readonly TimeSpan LedgerReadDelay = TimeSpan.FromMilliseconds(120);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Verify_WhileBotsPlay_PassesAtEverySnapshot()
    {
        var store = await StellarStore.OpenAsync(_dir.Path, StellarGameStore.Options(Durability.WriteThrough));
        await using var game = await StellarGameStore.OverAsync(store);
        var collections = GameCollections.Open(store);
        var server = new TcpGameServer(game, new IPEndPoint(IPAddress.Loopback, 0));
        var report = new BotReport();
        var checks = 0;
        try
        {
            server.Start();
            var bots = BotDriver.RunAsync(server.EndPoint, 20, TimeSpan.FromSeconds(4), report, CancellationToken.None);
            while (!bots.IsCompleted)
            {
                // The game's own check, then one that holds the cut while units commit (read collection by collection
                // without the snapshot, it fails: a character's new gold shows without its ledger entry).
                AssertOk(game.Verify());
                using (var cut = store.Snapshot())
                {
                    AssertOk(EconomyVerifier.Verify(new EconomyState(
                        cut.Of(collections.Accounts).Query(),
                        cut.Of(collections.Characters).Query(),
                        cut.Of(collections.Items).Query(),
                        Delayed(cut.Of(collections.Ledger).Query()),
                        cut.Of(collections.Trades).Query(),
                        cut.Of(collections.Sessions).Query())));
                }

                checks++;
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

    private static IEnumerable<LedgerEntry> Delayed(IEnumerable<LedgerEntry> ledger)
    {
        Thread.Sleep(LedgerReadDelay);
        foreach (var entry in ledger)
        {
            yield return entry;
        }
    }

    private static void AssertOk(VerificationResult verification) =>
        Assert.True(verification.Ok, string.Join(Environment.NewLine, verification.Failures));
}
