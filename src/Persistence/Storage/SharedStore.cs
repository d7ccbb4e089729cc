using System.Collections.Concurrent;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// An open store and the journal's and snapshot store's views of its collections, each made once per collection
/// (an index is declared once per open of a store), whichever plugin asks first.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
/// <param name="store">The open store.</param>
/// <param name="counters">The journal collections' counters, one per collection, shared with the earlier opens of the same store (see <see cref="EventCounters"/>).</param>
internal sealed class SharedStore(StellarStore store, ConcurrentDictionary<string, EventCounters> counters) : IAsyncDisposable
{
    private readonly ConcurrentDictionary<string, Lazy<Task<EventLog>>> _eventLogs = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, Lazy<Task<SnapshotLog>>> _snapshotLogs = new(StringComparer.Ordinal);

    /// <summary>The open store.</summary>
    public StellarStore Store { get; } = store;

    /// <summary>The events kept in <paramref name="collection"/>, loaded at the first call.</summary>
    public Task<EventLog> EventsAsync(string collection) =>
        _eventLogs.GetOrAdd(collection, name => new Lazy<Task<EventLog>>(() => EventLog.OpenAsync(Store, name, counters.GetOrAdd(name, _ => new EventCounters())))).Value;

    /// <summary>The snapshots kept in <paramref name="collection"/>, loaded at the first call.</summary>
    public Task<SnapshotLog> SnapshotsAsync(string collection) =>
        _snapshotLogs.GetOrAdd(collection, name => new Lazy<Task<SnapshotLog>>(() => SnapshotLog.OpenAsync(Store, name))).Value;

    public ValueTask DisposeAsync() => Store.DisposeAsync();
}
