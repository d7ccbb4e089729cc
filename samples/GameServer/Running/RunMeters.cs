using System.Collections.Concurrent;
using System.Diagnostics.Metrics;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// The meter factory of one run: the store creates its <c>Stellar.Store</c> meter here, so the run's
/// <see cref="StoreInstruments"/> hear this run's store only, not another one in the same process (the tests run several).
/// One meter per name, as a host's factory gives.
/// </summary>
internal sealed class RunMeters : IMeterFactory
{
    private readonly ConcurrentDictionary<string, Meter> _meters = new(StringComparer.Ordinal);

    public Meter Create(MeterOptions options) =>
        _meters.GetOrAdd(options.Name, static (name, state) => new Meter(new MeterOptions(name) { Version = state.Version, Scope = state.Factory }), (options.Version, Factory: this));

    public void Dispose()
    {
        foreach (var meter in _meters.Values)
        {
            meter.Dispose();
        }
    }
}
