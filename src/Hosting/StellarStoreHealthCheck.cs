using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Stellar.Store.Hosting;

/// <summary>
/// Reports the hosted store: healthy while every open collection takes writes and compacts; the registration's failure
/// status (unhealthy by default) when a collection is faulted or its last automatic compaction failed, or when the store
/// is not open (before the start, after a failed open) or closed (after the stop). The description names each such collection and why; <see cref="HealthCheckResult.Data"/> holds one
/// entry per collection named there.
/// </summary>
/// <remarks>Thread safety: may run on any thread, concurrently; it reads <see cref="StellarStore.GetCollectionHealth"/>,
/// which never waits for a writer.</remarks>
internal sealed class StellarStoreHealthCheck(StellarStoreHost host) : IHealthCheck
{
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(context);
        var failed = context.Registration.FailureStatus;
        StellarStore store;
        try
        {
            store = host.Store;
        }
        catch (InvalidOperationException e)
        {
            return Task.FromResult(new HealthCheckResult(failed, "The store is not open.", e));
        }

        // Closed by the host's stop, or first by the actor system's CoordinatedShutdown: no write can be taken.
        if (((IStoreContext)store).IsDisposed)
        {
            return Task.FromResult(new HealthCheckResult(failed, "The store is closed."));
        }

        var problems = new Dictionary<string, object>(StringComparer.Ordinal);
        Exception? first = null;
        foreach (var collection in store.GetCollectionHealth())
        {
            if (collection.Fault is { } fault)
            {
                problems[collection.Name] = $"faulted: {fault.Message}";
                first ??= fault;
            }
            else if (collection.LastCompactionError is { } error)
            {
                problems[collection.Name] = $"last automatic compaction failed: {error.Message}";
                first ??= error;
            }
        }

        return Task.FromResult(problems.Count == 0
            ? HealthCheckResult.Healthy($"The store at {store.Path} is open; every collection takes writes.")
            : new HealthCheckResult(failed, string.Join("; ", problems.Select(p => $"'{p.Key}' {p.Value}")), first, problems));
    }
}
