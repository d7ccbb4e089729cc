using System.Net.Sockets;
using Stellar.Store.Samples.GameServer.Protocol;
using Stellar.Store.Samples.GameServer.Server;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// The world driven tick by tick on the test's thread, over a store whose account and score writes and units the test
/// holds back: a login reads what the account's last session wrote, whichever of its writes was slowest to be stored,
/// and nothing is stored of a character before the unit that creates it.
/// </summary>
public sealed class WorldLogoutTests : IDisposable
{
    private readonly HeldWritesStore _store = new();
    private readonly List<Session> _sessions = new();
    private readonly WriteTracker _writes;
    private readonly World _world;
    private long _tick;
    private int _requestId;

    public WorldLogoutTests()
    {
        _writes = new WriteTracker(new WriteStats(), _ => { });
        _world = new World(_store, _writes, TimeSpan.FromSeconds(30));
    }

    public void Dispose()
    {
        foreach (var session in _sessions)
        {
            session.Close();
        }
    }

    [Fact]
    public async Task Login_AfterALogoutWhoseBestScoreIsNotStoredYet_ReadsThatScoreAndKeepsItBest()
    {
        var first = await LogInAsync();
        _store.HoldScores = true;
        Request(first, new GameProtocol.SubmitScore(NextId(), 80));
        Request(first, new GameProtocol.Logout(NextId()));
        _world.Tick(_tick++);
        Assert.Equal(1, _store.Held);

        var second = await LogInAgainAsync();

        // Independent oracle: the best score this account ever submitted; a lower one after it changes nothing.
        Assert.Equal(80, second.Player!.BestScore);
        Request(second, new GameProtocol.SubmitScore(NextId(), 60));
        await TickUntilAsync(() => _writes.InFlight == 0, "the second score stored");
        Assert.Equal(80, _store.GetScore(second.Player.Id)!.Score);
    }

    [Fact]
    public async Task Login_AfterALogoutWhoseLoginCountIsNotStoredYet_CountsEveryLogin()
    {
        await LogOutAsync(await LogInAsync());
        _store.HoldAccounts = true;
        var second = NewSession();
        Request(second, new GameProtocol.Login(NextId(), "a"));
        await TickUntilAsync(() => second.Player is not null, "the second login in the world");
        Request(second, new GameProtocol.Logout(NextId()));
        _world.Tick(_tick++);
        Assert.Equal(1, _store.Held);

        var third = await LogInAgainAsync();
        await TickUntilAsync(() => _writes.InFlight == 0, "the third login stored");

        // Independent oracle: the test logged in three times.
        Assert.Equal(3, _store.GetAccount("a")!.Logins);
        Assert.NotNull(third.Player);
    }

    [Fact]
    public async Task Play_BeforeTheUnitCreatingTheCharacterIsStored_StoresNoPositionOrScoreOfItUntilThen()
    {
        _store.HoldUnits = true;
        var session = NewSession();
        Request(session, new GameProtocol.Login(NextId(), "a"));
        await TickUntilAsync(() => session.Player is not null, "the new character in the world");
        var id = session.Player!.Id;

        // A client that does not wait for its login reply: it moves, submits a score and leaves, while the unit that
        // creates its character is held, as a slow round holds it; every position write falls due in 20 ticks.
        Request(session, new GameProtocol.Move(NextId(), 1, 1));
        Request(session, new GameProtocol.SubmitScore(NextId(), 80));
        for (var i = 0; i < 40; i++)
        {
            _world.Tick(_tick++);
        }

        Request(session, new GameProtocol.Logout(NextId()));
        _world.Tick(_tick++);

        // Independent oracle: a crash now loses the held unit, so the store must hold nothing that names the character.
        Assert.Null(_store.GetCharacter(id));
        Assert.Null(_store.GetPosition(id));
        Assert.Null(_store.GetScore(id));

        await _store.Release();
        await TickUntilAsync(() => _writes.InFlight == 0, "the logout stored");
        Assert.NotNull(_store.GetCharacter(id));
        Assert.NotNull(_store.GetPosition(id));
    }

    /// <summary>
    /// Logs account "a" in again on a new connection, while the last session's held write is not stored: a login that
    /// gets in then reads the store as it is; then releases the held writes and retries until the login is in the world.
    /// </summary>
    private async Task<Session> LogInAgainAsync()
    {
        _world.Tick(_tick++);
        var session = NewSession();
        Request(session, new GameProtocol.Login(NextId(), "a"));
        _world.Tick(_tick++);
        if (session.LoggingIn)
        {
            await TickUntilAsync(() => session.Player is not null, "the login read before the held write is stored");
        }

        await _store.Release();
        await TickUntilAsync(
            () =>
            {
                if (session.Player is null && !session.LoggingIn)
                {
                    Request(session, new GameProtocol.Login(NextId(), "a"));
                }

                return session.Player is not null;
            },
            "the login in the world");
        return session;
    }

    private async Task<Session> LogInAsync()
    {
        var session = NewSession();
        Request(session, new GameProtocol.Login(NextId(), "a"));
        await TickUntilAsync(() => session.Player is not null && _writes.InFlight == 0, "the login stored");
        return session;
    }

    private async Task LogOutAsync(Session session)
    {
        Request(session, new GameProtocol.Logout(NextId()));
        await TickUntilAsync(() => _writes.InFlight == 0, "the logout stored");
        _world.Tick(_tick++);
    }

    private Session NewSession()
    {
        var session = new Session(_sessions.Count + 1, new TcpClient());
        _sessions.Add(session);
        return session;
    }

    private void Request(Session session, GameProtocol.Message message) => _world.Post(new Inbound.Request(session, message));

    private int NextId() => ++_requestId;

    /// <summary>Ticks until <paramref name="condition"/> holds; a login's reads run on the thread pool meanwhile.</summary>
    private async Task TickUntilAsync(Func<bool> condition, string what)
    {
        for (var attempt = 0; !condition(); attempt++)
        {
            Assert.True(attempt < 60_000, $"no {what}");
            _world.Tick(_tick++);
            await Task.Delay(1);
        }
    }
}
