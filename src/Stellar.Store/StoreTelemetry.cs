namespace Stellar.Store;

/// <summary>
/// The names under which a store reports what it does: the <c>System.Diagnostics.Metrics.Meter</c> of its instruments,
/// the <c>System.Diagnostics.ActivitySource</c> of its traces, and the logger categories of its log events (see
/// <see cref="StoreLogEvents"/>). Subscribe by these names, e.g. OpenTelemetry's <c>AddMeter(StoreTelemetry.MeterName)</c>
/// and <c>AddSource(StoreTelemetry.ActivitySourceName)</c>. docs/observability.md lists every instrument and event.
/// </summary>
/// <remarks>Thread safety: constants only.</remarks>
public static class StoreTelemetry
{
    /// <summary>
    /// The name of the meter every instrument of the store belongs to: one created through
    /// <see cref="StoreOptions.MeterFactory"/> when it is set, else one shared by every store of the process.
    /// </summary>
    public const string MeterName = "Stellar.Store";

    /// <summary>The name of the activity source of the store's traces: an open, a compaction, a checkpoint.</summary>
    public const string ActivitySourceName = "Stellar.Store";

    /// <summary>The logger category of the store's own events (see <see cref="StoreLogEvents"/>).</summary>
    public const string LoggerCategory = "Stellar.Store";

    /// <summary>The logger category of what the actor system that a store made for itself logs.</summary>
    public const string AkkaLoggerCategory = "Stellar.Store.Akka";
}
