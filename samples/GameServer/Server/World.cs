using System.Threading.Channels;
using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// The game: every online character lives here, in memory, and only the tick thread touches it. Each tick takes
/// what is in the inbox, changes the state, and hands each change to the store as a write it does not wait for;
/// the reply goes to the client when the write is stored. Loading (logins, chunks) runs off the tick and comes
/// back through the inbox. So the tick never waits for the disk, and a client is never told of a change that a
/// crash could take back.
/// </summary>
internal sealed partial class World
{
    public const long StartingGold = 100;
    public const int MaxItems = 16;
    public const long CraftFee = 5;

    /// <summary>A character that moved is written at most this often (in ticks).</summary>
    private const int PositionWriteTicks = 20;

    private readonly IGameStore _store;
    private readonly WriteTracker _writes;
    private readonly TimeSpan _sessionLease;
    private readonly int _sessionRenewalTicks;
    private readonly Channel<Inbound> _inbox = Channel.CreateUnbounded<Inbound>(new UnboundedChannelOptions { SingleReader = true });
    private readonly Dictionary<string, Player> _online = new(StringComparer.Ordinal);
    private readonly List<Player> _players = new();
    private readonly HashSet<string> _busyAccounts = new(StringComparer.Ordinal);
    private readonly Random _random = new();
    private long _lastId;
    private int _onlineCount;

    /// <param name="store">Where the game's state lives.</param>
    /// <param name="writes">Follows the writes the tick issues.</param>
    /// <param name="sessionLease">How long a session lasts unless renewed.</param>
    public World(IGameStore store, WriteTracker writes, TimeSpan sessionLease)
    {
        _store = store;
        _writes = writes;
        _sessionLease = sessionLease;
        _sessionRenewalTicks = SessionRenewalTicks(sessionLease);
        _lastId = store.HighestId();
    }

    /// <summary>This run of the server, named in every session it writes.</summary>
    public Guid RunId { get; } = Guid.NewGuid();

    /// <summary>Characters online now (any thread).</summary>
    public int OnlineCount => Volatile.Read(ref _onlineCount);

    /// <summary>Queues work for the next tick. Any thread.</summary>
    public void Post(Inbound inbound) => _inbox.Writer.TryWrite(inbound);

    /// <summary>One tick: everything in the inbox, then the positions due to be written. Tick thread.</summary>
    public void Tick(long tick)
    {
        while (_inbox.Reader.TryRead(out var inbound))
        {
            Handle(inbound);
        }

        // Spread position writes over the second, and session renewals over a third of the lease: each character has
        // its own slot among the ticks. A position waits for the login's write: a plain write may be stored before the
        // unit that creates the character, and a crash between the two would keep a position of no character, which
        // the next character given its id after the restart would take over.
        foreach (var player in _players)
        {
            if (player.Moved && player.LoginWrite.IsCompletedSuccessfully && (tick + player.Id) % PositionWriteTicks == 0)
            {
                var write = _store.UpsertPositionAsync(player.ToPosition());
                _writes.Track(write, WriteKind.Position, static () => { });
            }

            if (player.HasSession && (tick + player.Id) % _sessionRenewalTicks == 0)
            {
                WriteSession(player);
            }
        }
    }

    /// <summary>After the last tick: what is left in the inbox, then every online character is written and dropped.</summary>
    public void Shutdown()
    {
        _inbox.Writer.TryComplete();
        while (_inbox.Reader.TryRead(out var inbound))
        {
            Handle(inbound);
        }

        foreach (var player in _players.ToList())
        {
            LeaveWorld(player, reply: null);
        }
    }

    private void Handle(Inbound inbound)
    {
        switch (inbound)
        {
            case Inbound.Request { Session.Closed: true }:
                break;
            case Inbound.Request { Message: GameProtocol.Login login } request:
                BeginLogin(request.Session, login);
                break;
            case Inbound.Request request when request.Session.Player is { } player:
                Play(player, request.Message);
                break;
            case Inbound.Request request:
                request.Session.Send(new GameProtocol.Refused(request.Message.RequestId, "not logged in"));
                break;
            case Inbound.LoginLoaded loaded:
                CompleteLogin(loaded);
                break;
            case Inbound.LoginStored stored:
                StartSession(stored.Player);
                break;
            case Inbound.ChunkLoaded loaded:
                ChunkArrived(loaded.Chunk);
                break;
            case Inbound.LogoutStored stored:
                _busyAccounts.Remove(stored.Account);
                break;
            case Inbound.Disconnected { Session.Player: { } player }:
                LeaveWorld(player, reply: null);
                break;
            case Inbound.Disconnected:
                break;
        }
    }

    private void Play(Player player, GameProtocol.Message message)
    {
        switch (message)
        {
            case GameProtocol.Move move:
                Move(player, move);
                break;
            case GameProtocol.Loot loot:
                Loot(player, loot);
                break;
            case GameProtocol.Craft craft:
                Craft(player, craft);
                break;
            case GameProtocol.Trade trade:
                Trade(player, trade);
                break;
            case GameProtocol.SubmitScore score:
                SubmitScore(player, score);
                break;
            case GameProtocol.Explore explore:
                Explore(player, explore);
                break;
            case GameProtocol.Logout logout:
                LeaveWorld(player, new GameProtocol.Done(logout.RequestId));
                break;
            default:
                player.Session.Send(new GameProtocol.Refused(message.RequestId, $"unexpected {message.GetType().Name}"));
                break;
        }
    }

    private long NextId() => ++_lastId;

    /// <summary>Issues <paramref name="unit"/>, which changes <paramref name="players"/>, and remembers it as their last.</summary>
    private Task Write(GameUnit unit, params ReadOnlySpan<Player> players)
    {
        var write = _store.WriteAsync(unit);
        foreach (var player in players)
        {
            player.LastUnit = write;
        }

        return write;
    }

    /// <summary>Tracks <paramref name="write"/> and sends <paramref name="reply"/> to <paramref name="session"/> once it is stored.</summary>
    private void ReplyWhenStored(Task write, WriteKind kind, Session session, GameProtocol.Message reply) =>
        _writes.Track(write, kind, () => session.Send(reply));
}
