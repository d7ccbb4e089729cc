using System.Collections.Concurrent;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// An open store and the journal's and snapshot store's views of its collections, each made once per collection
/// (an index is declared once per open of a store), whichever plugin asks first; a view whose load failed (a new
/// collection that could not be recorded on a full disk, say) is loaded again at the next call, so that the plugin goes
/// on once the cause is gone.
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

    /// <summary>The events kept in <paramref name="collection"/>, loaded at the first call (and after a failed load).</summary>
    public Task<EventLog> EventsAsync(string collection) =>
        Load(_eventLogs, collection, name => EventLog.OpenAsync(Store, name, counters.GetOrAdd(name, _ => new EventCounters())));

    /// <summary>The snapshots kept in <paramref name="collection"/>, loaded at the first call (and after a failed load).</summary>
    public Task<SnapshotLog> SnapshotsAsync(string collection) =>
        Load(_snapshotLogs, collection, name => SnapshotLog.OpenAsync(Store, name));

    public ValueTask DisposeAsync() => Store.DisposeAsync();

    /// <summary>The load of <paramref name="name"/> under way or done, or a new one when the last failed; one load at a time.</summary>
    private static Task<T> Load<T>(ConcurrentDictionary<string, Lazy<Task<T>>> loads, string name, Func<string, Task<T>> load)
    {
        while (true)
        {
            var current = loads.GetOrAdd(name, n => new Lazy<Task<T>>(() => load(n)));
            var task = current.Value;
            if (!task.IsFaulted && !task.IsCanceled)
            {
                return task;
            }

            var again = new Lazy<Task<T>>(() => load(name));
            if (loads.TryUpdate(name, again, current))
            {
                return again.Value;
            }
        }
    }
}
