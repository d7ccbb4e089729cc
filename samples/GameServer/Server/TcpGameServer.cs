using System.Net;
using System.Net.Sockets;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Protocol;
using Stellar.Store.Samples.GameServer.Running;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// The TCP front of the game: accepts connections, runs a <see cref="Session"/> for each, and a 20 Hz
/// <see cref="TickLoop"/> over the <see cref="World"/>. Leaderboard requests are answered by the connection's
/// own read loop from a store snapshot, without involving the tick at all.
/// </summary>
internal sealed class TcpGameServer : IAsyncDisposable
{
    public static readonly TimeSpan TickPeriod = TimeSpan.FromMilliseconds(50);
    public const int LeaderboardSize = 100;

    private readonly IGameStore _store;
    private readonly TcpListener _listener;
    private readonly World _world;
    private readonly TickLoop _loop;
    private readonly List<(Session Session, Task Run)> _sessions = new();
    private readonly Lock _sessionsLock = new();
    private readonly Lazy<Task> _stop;
    private Task? _acceptLoop;
    private int _nextSessionId;

    /// <param name="store">Where the game's state lives.</param>
    /// <param name="endpoint">Where to listen.</param>
    /// <param name="idleCollectBytes">Allocated bytes after which the tick loop collects gen0 between ticks (0: never).</param>
    /// <param name="sessionLease">How long a player's session lasts unless renewed; <see cref="RunOptions.DefaultSessionLease"/> if null.</param>
    public TcpGameServer(IGameStore store, IPEndPoint endpoint, long idleCollectBytes = RunOptions.DefaultIdleCollectBytes, TimeSpan? sessionLease = null)
    {
        _store = store;
        _listener = new TcpListener(endpoint);
        Writes = new WriteStats();
        Tracker = new WriteTracker(Writes, _ => CloseSessions());
        Ticks = new TickStats(TickPeriod);
        _world = new World(store, Tracker, sessionLease ?? RunOptions.DefaultSessionLease);
        _loop = new TickLoop(_world.Tick, _world.Shutdown, Ticks, idleCollectBytes);
        _stop = new Lazy<Task>(() => Task.Run(StopCoreAsync));
    }

    /// <summary>Where the server listens; the port is the one chosen when 0 was asked for.</summary>
    public IPEndPoint EndPoint => (IPEndPoint)_listener.LocalEndpoint;

    public TickStats Ticks { get; }

    public WriteStats Writes { get; }

    public WriteTracker Tracker { get; }

    public int Online => _world.OnlineCount;

    /// <summary>This run of the server, named in every session it writes.</summary>
    public Guid RunId => _world.RunId;

    public void Start()
    {
        Warmup.Run();
        _listener.Start(backlog: 1024);
        _loop.Start();
        _acceptLoop = AcceptLoopAsync();
    }

    /// <summary>
    /// Stops accepting, lets the tick loop finish (its last step writes every character still online), closes the
    /// connections and waits until every write issued is stored. The store stays open: the caller disposes it.
    /// Calling it again returns the same task.
    /// </summary>
    public Task StopAsync() => _stop.Value;

    /// <summary>Same as <see cref="StopAsync"/>.</summary>
    public ValueTask DisposeAsync() => new(StopAsync());

    private async Task StopCoreAsync()
    {
        _listener.Dispose();
        if (_acceptLoop is not null)
        {
            await _acceptLoop.ConfigureAwait(false);
        }

        _loop.Stop();
        await Task.WhenAll(CloseSessions().Select(s => s.Run)).ConfigureAwait(false);
        await Tracker.WhenIdleAsync().ConfigureAwait(false);
    }

    /// <summary>
    /// Drops every connection. On a store failure the server does this at once, and drops every connection accepted
    /// after: its memory holds changes the store may not, so it must stop telling clients anything.
    /// </summary>
    private List<(Session Session, Task Run)> CloseSessions()
    {
        List<(Session Session, Task Run)> sessions;
        lock (_sessionsLock)
        {
            sessions = _sessions.ToList();
        }

        foreach (var (session, _) in sessions)
        {
            session.Close();
        }

        return sessions;
    }

    private async Task AcceptLoopAsync()
    {
        while (true)
        {
            TcpClient client;
            try
            {
                client = await _listener.AcceptTcpClientAsync().ConfigureAwait(false);
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException or InvalidOperationException)
            {
                return; // the listener was stopped
            }

            var session = new Session(Interlocked.Increment(ref _nextSessionId), client);
            lock (_sessionsLock)
            {
                _sessions.RemoveAll(s => s.Run.IsCompleted);
                _sessions.Add((session, RunSessionAsync(session)));
            }

            // After a fault the server serves nobody: its memory holds changes the store may not. The fault is recorded
            // before the connections are dropped, so a connection added after that drop sees it here.
            if (Tracker.Fault is not null)
            {
                session.Close();
            }
        }
    }

    private async Task RunSessionAsync(Session session)
    {
        await Task.Yield();
        await session.RunAsync(OnRequest).ConfigureAwait(false);
        _world.Post(new Inbound.Disconnected(session));
    }

    private void OnRequest(Session session, GameProtocol.Message request)
    {
        if (request is GameProtocol.TopScores top)
        {
            // A read of one snapshot on this connection's thread, while the tick and the writers go on.
            session.Send(new GameProtocol.Scores(top.RequestId, _store.TopScores(LeaderboardSize)));
            Writes.CountLeaderboardQuery();
            return;
        }

        _world.Post(new Inbound.Request(session, request));
    }
}
