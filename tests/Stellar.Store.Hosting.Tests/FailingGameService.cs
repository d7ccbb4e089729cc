using Microsoft.Extensions.Hosting;

namespace Stellar.Store.Hosting.Tests;

/// <summary>
/// A service registered after the store that writes its <see cref="Team"/> at its start and then fails the start, as a
/// game service that cannot reach something it needs would.
/// </summary>
internal sealed class FailingGameService(StellarStoreHost stellar) : IHostedService
{
    public static readonly List<Player> Team = TestHosts.Team(20, "early");

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        var players = TestHosts.Players(stellar.Store);
        await players.WriteAsync(b => Team.ForEach(p => b.Upsert(p)), cancellationToken);
        throw new InvalidOperationException("The game service could not start.");
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
