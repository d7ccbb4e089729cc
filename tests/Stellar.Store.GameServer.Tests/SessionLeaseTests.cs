using System.Diagnostics;
using System.Net;
using Stellar.Store.Samples.GameServer.Bots;
using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Server;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// Sessions are leases: one suite for both keepers of the game's state, with a clock the test moves, shows that a
/// session is gone once its lease ends, stays while it is renewed, and is gone once deleted; and that the sessions a
/// crash leaves in the store lapse on their own. The server renews the session of every player who stays online.
/// </summary>
public sealed class SessionLeaseTests : IDisposable
{
    private static readonly TimeSpan Lease = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan WaitTimeout = TimeSpan.FromSeconds(60);
    private static readonly Guid RunId = new("00000000-0000-0000-0000-000000000001");

    private readonly TempDirectory _dir = new();
    private readonly TestClock _clock = new();

    public static TheoryData<string> Stores => new() { "store", "memory" };

    public void Dispose() => _dir.Dispose();

    [Theory]
    [MemberData(nameof(Stores))]
    public async Task GetSession_OnceTheClockPassesTheLease_IsNullAndTheSessionIsInNoVerification(string kind)
    {
        await using var store = await OpenAsync(kind);
        await store.WriteAsync(Creation());
        await store.UpsertSessionAsync(Session(), Lease);

        _clock.Advance(Lease - TimeSpan.FromSeconds(1));
        Assert.Equal(Session(), store.GetSession(1));
        Assert.Equal(1, store.Verify().Sessions);

        _clock.Advance(TimeSpan.FromSeconds(1));
        Assert.Null(store.GetSession(1));
        var verification = store.Verify(stoppedRun: RunId);
        Assert.True(verification.Ok, string.Join("; ", verification.Failures));
        Assert.Equal(0, verification.Sessions);
    }

    [Theory]
    [MemberData(nameof(Stores))]
    public async Task UpsertSessionAsync_RenewedBeforeTheLeaseEnds_KeepsTheSessionPastTheFirstLease(string kind)
    {
        await using var store = await OpenAsync(kind);
        await store.WriteAsync(Creation());
        await store.UpsertSessionAsync(Session(), Lease);

        // Renewed every third of the lease, as the world does, for three leases.
        for (var renewal = 0; renewal < 9; renewal++)
        {
            _clock.Advance(Lease / 3);
            Assert.NotNull(store.GetSession(1));
            await store.UpsertSessionAsync(Session(), Lease);
        }

        _clock.Advance(Lease - TimeSpan.FromSeconds(1));
        Assert.Equal(Session(), store.GetSession(1));
        _clock.Advance(TimeSpan.FromSeconds(1));
        Assert.Null(store.GetSession(1));
    }

    [Theory]
    [MemberData(nameof(Stores))]
    public async Task DeleteSessionAsync_BeforeTheLeaseEnds_RemovesTheSession(string kind)
    {
        await using var store = await OpenAsync(kind);
        await store.WriteAsync(Creation());
        await store.UpsertSessionAsync(Session(), Lease);

        await store.DeleteSessionAsync(1);

        Assert.Null(store.GetSession(1));
        Assert.Equal(0, store.Verify().Sessions);
        await store.DeleteSessionAsync(1); // a player who never got a session logs out the same way
    }

    [Fact]
    public async Task Reopen_OfSessionsNobodyDeleted_ShowsThemUntilTheirLeaseEndsThenNone()
    {
        // Written and never deleted: what a crash leaves of the players who were online.
        await using (var store = await OpenAsync("store"))
        {
            await store.WriteAsync(Creation());
            await store.UpsertSessionAsync(Session(), Lease);
        }

        await using (var reopened = await OpenAsync("store"))
        {
            Assert.Equal(Session(), reopened.GetSession(1));
            Assert.True(reopened.Verify().Ok);
        }

        // The restarted server does nothing about them: the lease ends, and the session is in no read.
        _clock.Advance(Lease);
        await using (var later = await OpenAsync("store"))
        {
            Assert.Null(later.GetSession(1));
            var verification = later.Verify(stoppedRun: RunId);
            Assert.True(verification.Ok, string.Join("; ", verification.Failures));
            Assert.Equal((0, 1), (verification.Sessions, verification.Characters));
        }
    }

    [Fact]
    public async Task Server_WhilePlayersStayOnline_RenewsEverySessionPastItsFirstLeaseAndDeletesThemAtLogout()
    {
        // A lease of 3 s is renewed every second of real time; the store's clock moves only when the test moves it.
        const int Bots = 10;
        var lease = TimeSpan.FromSeconds(3);
        var store = await StellarStore.OpenAsync(_dir.Path, StellarGameStore.Options(Durability.WriteThrough, _clock));
        await using var game = await StellarGameStore.OverAsync(store);
        var sessions = GameCollections.Open(store).Sessions;
        var server = new TcpGameServer(game, new IPEndPoint(IPAddress.Loopback, 0), sessionLease: lease);
        using var stopBots = new CancellationTokenSource();
        Task bots = Task.CompletedTask;
        try
        {
            server.Start();
            bots = BotDriver.RunAsync(server.EndPoint, Bots, TimeSpan.FromMinutes(10), new BotReport(), stopBots.Token);
            await WaitUntilAsync(() => sessions.Count == Bots, bots, "a session of every bot");
            var firstLeaseEnds = _clock.GetUtcNow() + lease;

            // Short of the lease's end, the clock waits until the server has written every session again.
            _clock.Advance(lease - TimeSpan.FromSeconds(1));
            await WaitUntilAsync(() => sessions.Query().All(s => sessions.ExpiresAt(s.CharacterId) > firstLeaseEnds), bots, "every session renewed");

            _clock.Advance(TimeSpan.FromSeconds(2));
            Assert.True(_clock.GetUtcNow() > firstLeaseEnds);
            Assert.Equal(Bots, sessions.Count);
            Assert.All(sessions.Query(), s => Assert.Equal(server.RunId, s.ServerRunId));
        }
        finally
        {
            await stopBots.CancelAsync();
            await bots;
            await server.StopAsync();
        }

        Assert.Null(server.Tracker.Fault);
        Assert.Equal(0, sessions.Count);
        var verification = game.Verify(stoppedRun: server.RunId);
        Assert.True(verification.Ok, string.Join("; ", verification.Failures));
    }

    private static async Task WaitUntilAsync(Func<bool> condition, Task bots, string what)
    {
        var waiting = Stopwatch.StartNew();
        while (!condition())
        {
            Assert.True(waiting.Elapsed < WaitTimeout, $"no {what} within {WaitTimeout}");
            Assert.False(bots.IsCompleted, $"the bots stopped before {what}");
            await Task.Delay(10);
        }
    }

    /// <summary>Account "a", its character 1 with 100 gold, and the starting gold's ledger entry 2.</summary>
    private static GameUnit Creation() => new GameUnit()
        .Insert(new AccountRecord("a", 1, 1, DateTime.UnixEpoch))
        .Insert(new CharacterRecord(1, "a", 100, []))
        .Insert(new LedgerEntry(2, 1, 100, LedgerReason.Grant, 0));

    private static SessionRecord Session() => new(1, "a", DateTime.UnixEpoch, RunId);

    private async Task<IGameStore> OpenAsync(string kind)
    {
        if (kind == "memory")
        {
            return new MemoryGameStore(_clock);
        }

        var store = await StellarStore.OpenAsync(_dir.Path, StellarGameStore.Options(Durability.WriteThrough, _clock));
        return await StellarGameStore.OverAsync(store);
    }
}
