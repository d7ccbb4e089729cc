namespace Stellar.Store.Snapshots;

/// <summary>
/// A version of a record that expires: it keeps its expiry time, and where its value is on disk when the value is too
/// large to keep in memory. Kept apart from <see cref="VersionNode{TValue}"/> so that records which never expire do not
/// carry the fields.
/// </summary>
internal sealed class ExpiringVersionNode<TValue> : VersionNode<TValue>
{
    private ValueLocation? _location;

    public ExpiringVersionNode(long version, TValue? value, uint shardId, int size, VersionNode<TValue>? next, ValueLocation? location, long expiresAt)
        : base(version, location is null ? value : default, deleted: false, onDisk: location is not null, shardId, size, next, expiring: true)
    {
        _location = location;
        Expiry = expiresAt;
    }

    /// <summary>When the record expires, in UTC ticks (greater than 0).</summary>
    public long Expiry { get; }

    /// <summary>
    /// Writer only: this version's entry in the collection's expiry index (a list node of
    /// <see cref="Indexes.ExpiryIndex{TKey,TValue}"/>), so that the write replacing it finds the entry without a lookup.
    /// </summary>
    public object? ExpiryEntry { get; set; }

    /// <summary>Where the value is now, when it is on disk; a compaction swaps in a new place while readers read.</summary>
    public ValueLocation? CurrentLocation
    {
        get => Volatile.Read(ref _location);
        set => Volatile.Write(ref _location, value);
    }
}
