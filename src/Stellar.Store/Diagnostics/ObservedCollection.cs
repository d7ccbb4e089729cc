using Stellar.Store.Engine;

namespace Stellar.Store.Diagnostics;

/// <summary>What the observable gauges of <see cref="StoreMetrics"/> read of one loaded collection.</summary>
/// <param name="Tag">The collection's tag.</param>
/// <param name="QueuedWrites">Writes queued or being committed now.</param>
/// <param name="QueuedBytes">Their bytes.</param>
/// <param name="Ledger">The collection's stored and live bytes.</param>
/// <remarks>Thread safety: every member may be read from any thread.</remarks>
internal sealed record ObservedCollection(KeyValuePair<string, object?> Tag, Func<long> QueuedWrites, Func<long> QueuedBytes, ShardUsageLedger Ledger);
