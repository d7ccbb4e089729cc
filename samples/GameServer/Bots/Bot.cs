using System.Net;
using System.Net.Sockets;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Bots;

/// <summary>
/// One scripted player: logs in, then until the deadline moves, loots, crafts, trades, submits scores, explores
/// and reads the leaderboard with short pauses, then logs out.
/// </summary>
internal sealed class Bot
{
    /// <summary>How long a bot keeps trying to log in, at least, whatever its play deadline.</summary>
    private static readonly TimeSpan LoginTimeout = TimeSpan.FromSeconds(30);

    private readonly string _account;
    private readonly Random _random;
    private readonly BotReport _report;

    public Bot(int number, BotReport report)
    {
        _account = $"bot-{number:D4}";
        _random = new Random(number);
        _report = report;
    }

    /// <summary>Plays until <paramref name="deadline"/>; ends early, without throwing, if the connection is lost.</summary>
    public async Task PlayAsync(IPEndPoint server, DateTime deadline, CancellationToken cancellationToken)
    {
        try
        {
            await using var client = await BotClient.ConnectAsync(server, cancellationToken).ConfigureAwait(false);
            // A player who connected keeps trying to log in for a while even if the session's play time is over, so a
            // slow start (a busy machine, a long login storm) shows as a late login, not a missing one.
            var loginDeadline = deadline > DateTime.UtcNow + LoginTimeout ? deadline : DateTime.UtcNow + LoginTimeout;
            if (!await LoginAsync(client, loginDeadline, cancellationToken).ConfigureAwait(false))
            {
                return;
            }

            while (DateTime.UtcNow < deadline)
            {
                await ActAsync(client, cancellationToken).ConfigureAwait(false);
                await Task.Delay(20 + _random.Next(60), cancellationToken).ConfigureAwait(false);
            }

            await SendAsync(client, new GameProtocol.Logout(client.NextRequestId()), cancellationToken).ConfigureAwait(false);
            _report.CountLogout();
        }
        catch (Exception e) when (e is IOException or SocketException or InvalidDataException or ObjectDisposedException)
        {
            _report.CountLostConnection();
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Stopped from outside.
        }
    }

    private async Task<bool> LoginAsync(BotClient client, DateTime deadline, CancellationToken cancellationToken)
    {
        while (DateTime.UtcNow < deadline)
        {
            var reply = await SendAsync(client, new GameProtocol.Login(client.NextRequestId(), _account), cancellationToken).ConfigureAwait(false);
            if (reply is GameProtocol.LoggedIn loggedIn)
            {
                _report.CountLogin(loggedIn.Created);
                return true;
            }

            // The account is still busy (a logout of an earlier session is being written): try again shortly.
            await Task.Delay(100, cancellationToken).ConfigureAwait(false);
        }

        return false;
    }

    private Task<GameProtocol.Message> ActAsync(BotClient client, CancellationToken cancellationToken)
    {
        var id = client.NextRequestId();
        GameProtocol.Message request = _random.Next(100) switch
        {
            < 35 => new GameProtocol.Move(id, _random.Next(-4, 5), _random.Next(-4, 5)),
            < 55 => new GameProtocol.Loot(id),
            < 65 => new GameProtocol.Craft(id),
            < 77 => new GameProtocol.Trade(id, 1 + _random.Next(30)),
            < 85 => new GameProtocol.SubmitScore(id, _random.Next(1_000_000)),
            < 95 => new GameProtocol.Explore(id),
            _ => new GameProtocol.TopScores(id),
        };
        return SendAsync(client, request, cancellationToken);
    }

    private async Task<GameProtocol.Message> SendAsync(BotClient client, GameProtocol.Message request, CancellationToken cancellationToken)
    {
        _report.CountRequest();
        var reply = await client.RequestAsync(request, cancellationToken).ConfigureAwait(false);
        switch (reply)
        {
            case GameProtocol.Traded traded:
                _report.AddTrade(traded.TradeId);
                break;
            case GameProtocol.Refused:
                _report.CountRefused();
                break;
        }

        return reply;
    }
}
