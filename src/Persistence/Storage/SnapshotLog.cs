using Akka.Persistence;
using Stellar.Store.Persistence.Records;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// The snapshots in one collection of a store, keyed by (persistence id, sequence number), with an ordered index on
/// that key so that a load or a delete by criteria walks one persistence id's snapshots in sequence order.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal sealed class SnapshotLog
{
    /// <summary>The snapshots in key order: (persistence id, sequence number), built with the collection's load.</summary>
    private static readonly IndexDefinition<(string, long), SnapshotRecord> ByKey = new("by-key", r => (r.PersistenceId, r.SequenceNr));

    private readonly Collection<(string, long), SnapshotRecord> _snapshots;
    private readonly CollectionIndex<(string, long), (string, long), SnapshotRecord> _byKey;

    private SnapshotLog(Collection<(string, long), SnapshotRecord> snapshots, CollectionIndex<(string, long), (string, long), SnapshotRecord> byKey)
    {
        _snapshots = snapshots;
        _byKey = byKey;
    }

    /// <summary>Loads the snapshots of <paramref name="collection"/> and builds the index.</summary>
    public static async Task<SnapshotLog> OpenAsync(StellarStore store, string collection)
    {
        var snapshots = await store.GetCollectionAsync<(string, long), SnapshotRecord>(collection, r => (r.PersistenceId, r.SequenceNr), [ByKey]).ConfigureAwait(false);
        var byKey = snapshots.Index(ByKey);
        await byKey.Ready.ConfigureAwait(false);
        return new SnapshotLog(snapshots, byKey);
    }

    /// <summary>The snapshots of <paramref name="persistenceId"/> that <paramref name="criteria"/> selects, lowest sequence number first.</summary>
    public IReadOnlyList<SnapshotRecord> Select(string persistenceId, SnapshotSelectionCriteria criteria)
    {
        if (criteria.MaxSequenceNr < criteria.MinSequenceNr)
        {
            return [];
        }

        var maxTicks = criteria.MaxTimeStamp.Ticks;
        var minTicks = criteria.MinTimestamp?.Ticks ?? 0;
        return _byKey.Range((persistenceId, criteria.MinSequenceNr), (persistenceId, criteria.MaxSequenceNr))
            .Where(r => string.Equals(r.PersistenceId, persistenceId, StringComparison.Ordinal) && r.Timestamp <= maxTicks && r.Timestamp >= minTicks)
            .ToList();
    }

    /// <summary>Stores <paramref name="record"/>, replacing a snapshot of the same persistence id and sequence number.</summary>
    public Task SaveAsync(SnapshotRecord record) => _snapshots.UpsertAsync(record);

    /// <summary>Deletes the snapshot of <paramref name="persistenceId"/> at <paramref name="sequenceNr"/>, if there is one.</summary>
    public Task DeleteAsync(string persistenceId, long sequenceNr) => _snapshots.DeleteAsync((persistenceId, sequenceNr));

    /// <summary>Deletes every snapshot of <paramref name="persistenceId"/> that <paramref name="criteria"/> selects, in one atomic batch.</summary>
    public Task DeleteAsync(string persistenceId, SnapshotSelectionCriteria criteria)
    {
        var doomed = Select(persistenceId, criteria);
        return doomed.Count == 0
            ? Task.CompletedTask
            : _snapshots.WriteAsync(b =>
            {
                foreach (var record in doomed)
                {
                    b.Delete((record.PersistenceId, record.SequenceNr));
                }
            });
    }
}
