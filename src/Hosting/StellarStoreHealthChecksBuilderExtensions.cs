using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Stellar.Store.Hosting;

/// <summary>Adds the hosted store's health check to a host's health checks.</summary>
/// <remarks>Thread safety: call while the host is being built, from one thread.</remarks>
public static class StellarStoreHealthChecksBuilderExtensions
{
    /// <summary>
    /// Adds a check of the store registered by <c>AddStellarStore</c>: healthy while every open collection takes writes;
    /// <paramref name="failureStatus"/> when a collection is faulted (its writes fail until the store is reopened), when a
    /// collection's last automatic compaction failed (storage is failing, and the files keep growing), or when the store
    /// is not open (before the start, after a failed open) or closed (after the stop). The result's description names each such collection and why.
    /// </summary>
    /// <param name="builder">The host's health checks.</param>
    /// <param name="name">The check's name.</param>
    /// <param name="failureStatus">What to report on a failure; null reports <see cref="HealthStatus.Unhealthy"/>.</param>
    /// <param name="tags">Tags to filter checks by.</param>
    /// <returns><paramref name="builder"/>.</returns>
    public static IHealthChecksBuilder AddStellarStore(this IHealthChecksBuilder builder, string name = "stellar-store",
        HealthStatus? failureStatus = null, IEnumerable<string>? tags = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        return builder.Add(new HealthCheckRegistration(name, sp => new StellarStoreHealthCheck(sp.GetRequiredService<StellarStoreHost>()), failureStatus, tags));
    }
}
