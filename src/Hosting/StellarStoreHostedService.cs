using Microsoft.Extensions.Hosting;

namespace Stellar.Store.Hosting;

/// <summary>
/// Opens the store when the host starts and flushes and closes it when the host stops (see <see cref="StellarStoreHost"/>).
/// A store that cannot open fails the host's start with the store's own exception.
/// </summary>
/// <remarks>Thread safety: the host calls it from one thread at a time.</remarks>
internal sealed class StellarStoreHostedService(StellarStoreHost host) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken) => host.OpenAsync(cancellationToken);

    public Task StopAsync(CancellationToken cancellationToken) => host.CloseAsync();
}
