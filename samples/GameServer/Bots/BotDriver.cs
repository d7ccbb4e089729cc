using System.Net;

namespace Stellar.Store.Samples.GameServer.Bots;

/// <summary>Runs N bots against a server: all log in at once (the login storm) and all log out at the deadline (the logout wave).</summary>
internal static class BotDriver
{
    public static Task RunAsync(IPEndPoint server, int bots, TimeSpan duration, BotReport report, CancellationToken cancellationToken)
    {
        var deadline = DateTime.UtcNow + duration;
        return Task.WhenAll(Enumerable.Range(1, bots).Select(n => Task.Run(
            () => new Bot(n, report).PlayAsync(server, deadline, cancellationToken), CancellationToken.None)));
    }
}
