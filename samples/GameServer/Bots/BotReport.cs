using System.Collections.Concurrent;

namespace Stellar.Store.Samples.GameServer.Bots;

/// <summary>What the bots did and were told. Thread-safe.</summary>
internal sealed class BotReport
{
    private readonly ConcurrentQueue<long> _trades = new();
    private long _requests;
    private long _refused;
    private int _loggedIn;
    private int _created;
    private int _loggedOut;
    private int _lostConnections;

    /// <summary>Called with each trade id the server acknowledged, as it arrives.</summary>
    public Action<long>? TradeAcknowledged { get; init; }

    /// <summary>Every trade id the server acknowledged (replied <c>Traded</c>) so far.</summary>
    public IReadOnlyCollection<long> AcknowledgedTrades => _trades;

    public long Requests => Volatile.Read(ref _requests);

    public long Refused => Volatile.Read(ref _refused);

    public int LoggedIn => Volatile.Read(ref _loggedIn);

    public int LoggedOut => Volatile.Read(ref _loggedOut);

    /// <summary>Logins that created a new character (the rest found theirs in the store).</summary>
    public int CharactersCreated => Volatile.Read(ref _created);

    /// <summary>Bots whose connection failed (the server died or closed it).</summary>
    public int LostConnections => Volatile.Read(ref _lostConnections);

    public void CountRequest() => Interlocked.Increment(ref _requests);

    public void CountRefused() => Interlocked.Increment(ref _refused);

    public void CountLogin(bool created)
    {
        Interlocked.Increment(ref _loggedIn);
        if (created)
        {
            Interlocked.Increment(ref _created);
        }
    }

    public void CountLogout() => Interlocked.Increment(ref _loggedOut);

    public void CountLostConnection() => Interlocked.Increment(ref _lostConnections);

    public void AddTrade(long tradeId)
    {
        _trades.Enqueue(tradeId);
        TradeAcknowledged?.Invoke(tradeId);
    }
}
