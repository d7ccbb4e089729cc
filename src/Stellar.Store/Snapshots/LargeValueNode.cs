namespace Stellar.Store.Snapshots;

/// <summary>
/// A version whose value stays on disk: it keeps the value's location instead of the value. Kept apart from
/// <see cref="VersionNode{TValue}"/> so that the common node, whose value is in memory, does not carry the field.
/// </summary>
internal sealed class LargeValueNode<TValue> : VersionNode<TValue>
{
    private ValueLocation _location;

    public LargeValueNode(long version, uint shardId, int size, VersionNode<TValue>? next, ValueLocation location)
        : base(version, default, deleted: false, onDisk: true, shardId, size, next)
    {
        _location = location;
    }

    /// <summary>Where the value is now; a compaction swaps in a new place while readers read.</summary>
    public ValueLocation CurrentLocation
    {
        get => Volatile.Read(ref _location);
        set => Volatile.Write(ref _location, value);
    }
}
