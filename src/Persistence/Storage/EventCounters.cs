using System.Collections.Concurrent;
using System.Diagnostics;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// The counters of one journal collection that outlive a reopen of its store: the highest sequence number of each
/// persistence id and the last ordering handed out. Every <see cref="EventLog"/> of the collection, on the store as
/// first opened and on each reopen after a fault, shares them and only ever raises them, so that a reopened store that
/// lost events the process already acknowledged (<c>buffered</c> durability: they were still in memory when the disk
/// filled) never hands their sequence numbers or orderings out again to other events.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread; orderings are handed out under <see cref="Gate"/>.</remarks>
internal sealed class EventCounters
{
    private readonly ConcurrentDictionary<string, long> _highest = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, long> _submitted = new(StringComparer.Ordinal);
    private long _ordering;

    /// <summary>Held while orderings are handed out and their writes submitted, so that orderings rise in commit order.</summary>
    public object Gate { get; } = new();

    /// <summary>The last ordering handed out.</summary>
    public long LastOrdering => Volatile.Read(ref _ordering);

    /// <summary>Every persistence id that has written an event.</summary>
    public ICollection<string> PersistenceIds => _highest.Keys;

    /// <summary>The next ordering; call under <see cref="Gate"/>.</summary>
    public long NextOrdering()
    {
        Debug.Assert(Monitor.IsEntered(Gate), "orderings are handed out under the gate");
        return Interlocked.Increment(ref _ordering);
    }

    /// <summary>Raises the last ordering to <paramref name="ordering"/> if it is below (an open found it stored).</summary>
    public void RaiseOrdering(long ordering)
    {
        lock (Gate)
        {
            if (ordering > _ordering)
            {
                Volatile.Write(ref _ordering, ordering);
            }
        }
    }

    /// <summary>The highest sequence number <paramref name="persistenceId"/> has written; 0 if none.</summary>
    public long HighestSequenceNr(string persistenceId) => _highest.TryGetValue(persistenceId, out var highest) ? highest : 0;

    /// <summary>
    /// The highest sequence number submitted for <paramref name="persistenceId"/> in this process, stored or not; 0 if
    /// none. Raised before the write reaches the store, so it counts every event of the id committed so far that the
    /// highest does not count yet (raised when the write completes, after its commit).
    /// </summary>
    public long SubmittedSequenceNr(string persistenceId) => _submitted.TryGetValue(persistenceId, out var submitted) ? submitted : 0;

    /// <summary>Every persistence id with a write submitted in this process, stored or not.</summary>
    public ICollection<string> SubmittedIds => _submitted.Keys;

    /// <summary>An event of <paramref name="persistenceId"/> at <paramref name="sequenceNr"/> goes to the store; call under <see cref="Gate"/>, before submitting it.</summary>
    public void Submitted(string persistenceId, long sequenceNr)
    {
        Debug.Assert(Monitor.IsEntered(Gate), "writes are submitted under the gate");
        _submitted.AddOrUpdate(persistenceId, sequenceNr, (_, old) => Math.Max(old, sequenceNr));
    }

    /// <summary>Raises the highest sequence number of <paramref name="persistenceId"/> to <paramref name="sequenceNr"/> if it is below.</summary>
    public void Raise(string persistenceId, long sequenceNr)
    {
        Debug.Assert(sequenceNr >= 0, "sequence numbers are not negative");
        _highest.AddOrUpdate(persistenceId, sequenceNr, (_, old) => Math.Max(old, sequenceNr));
    }
}
