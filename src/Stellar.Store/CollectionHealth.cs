namespace Stellar.Store;

/// <summary>
/// Whether one open collection can take writes, as <see cref="StellarStore.GetCollectionHealth"/> reports it: what a
/// health check or an operator needs to act on. Immutable.
/// </summary>
/// <param name="Name">
/// The collection's name. The store's own log of writes across collections (<see cref="StellarStore.WriteAsync"/>) is
/// reported too, as <c>$units</c>, once the store has one: when it is faulted, writes across collections fail.
/// </param>
/// <param name="Fault">
/// The <see cref="StoreFaultedException"/> every write to the collection fails with since storage failed under it, or
/// null while it has not. A faulted collection stays faulted until the store is reopened, which recovers every
/// acknowledged write; readers still see every acknowledged write meanwhile.
/// </param>
/// <param name="LastCompactionError">
/// Why the last automatic compaction failed, or null when it did not (as <see cref="CollectionStatistics.LastCompactionError"/>).
/// A compaction that failed before its swap leaves the collection usable and is tried again later; one that failed at
/// the swap faults the collection as well.
/// </param>
public sealed record CollectionHealth(string Name, Exception? Fault, Exception? LastCompactionError)
{
    /// <summary>Whether the collection is faulted: writes to it fail until the store is reopened.</summary>
    public bool IsFaulted => Fault is not null;
}
