using Microsoft.Extensions.Hosting;

namespace Stellar.Store.Hosting;

/// <summary>
/// Opens the store when the host starts and flushes and closes it when the host stops (see <see cref="StellarStoreHost"/>).
/// A store that cannot open fails the host's start with the store's own exception. When the host is disposed without
/// having stopped this service (a service registered later failed its start, or the host was disposed without a stop),
/// the container's disposal of this service flushes and closes the store instead.
/// </summary>
/// <remarks>Thread safety: the host calls it from one thread at a time.</remarks>
internal sealed class StellarStoreHostedService(StellarStoreHost host) : IHostedService, IAsyncDisposable
{
    public Task StartAsync(CancellationToken cancellationToken) => host.OpenAsync(cancellationToken);

    public Task StopAsync(CancellationToken cancellationToken) => host.CloseAsync();

    public ValueTask DisposeAsync() => new(host.CloseUnlessClosedAsync());
}
