using System.Diagnostics.Metrics;

namespace Stellar.Store.Tests.Support;

/// <summary>
/// A meter factory of a test's own: every meter it creates is new and scoped to it, so a listener that keeps only this
/// factory's meters hears nothing of the stores other tests run at the same time.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
public sealed class TestMeterFactory : IMeterFactory
{
    private readonly List<Meter> _meters = new();

    public Meter Create(MeterOptions options)
    {
        var meter = new Meter(new MeterOptions(options.Name) { Version = options.Version, Tags = options.Tags, Scope = this });
        lock (_meters)
        {
            _meters.Add(meter);
        }

        return meter;
    }

    public void Dispose()
    {
        lock (_meters)
        {
            foreach (var meter in _meters)
            {
                meter.Dispose();
            }

            _meters.Clear();
        }
    }
}
