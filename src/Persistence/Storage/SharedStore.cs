using System.Collections.Concurrent;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// An open store and the journal's and snapshot store's views of its collections, each made once per collection
/// (an index is declared once per open of a store), whichever plugin asks first.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal sealed class SharedStore(StellarStore store) : IAsyncDisposable
{
    private readonly ConcurrentDictionary<string, Lazy<Task<EventLog>>> _eventLogs = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, Lazy<Task<SnapshotLog>>> _snapshotLogs = new(StringComparer.Ordinal);

    /// <summary>The open store.</summary>
    public StellarStore Store { get; } = store;

    /// <summary>The events kept in <paramref name="collection"/>, loaded at the first call.</summary>
    public Task<EventLog> EventsAsync(string collection) =>
        _eventLogs.GetOrAdd(collection, name => new Lazy<Task<EventLog>>(() => EventLog.OpenAsync(Store, name))).Value;

    /// <summary>The snapshots kept in <paramref name="collection"/>, loaded at the first call.</summary>
    public Task<SnapshotLog> SnapshotsAsync(string collection) =>
        _snapshotLogs.GetOrAdd(collection, name => new Lazy<Task<SnapshotLog>>(() => SnapshotLog.OpenAsync(Store, name))).Value;

    public ValueTask DisposeAsync() => Store.DisposeAsync();
}
