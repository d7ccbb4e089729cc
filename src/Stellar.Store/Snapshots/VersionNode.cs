namespace Stellar.Store.Snapshots;

/// <summary>
/// One version of one key: a value or a deletion, stamped with the commit version that wrote it, linked to the
/// version it replaced. Immutable once published, except <see cref="Next"/>, which the writer cuts when no reader
/// can need the older versions any more.
/// </summary>
internal sealed class VersionNode<TValue>
{
    /// <summary>Marks a chain the writer cut: the versions beyond it are gone.</summary>
    public static readonly VersionNode<TValue> Trimmed = new(0, default, deleted: true, shardId: 0, size: 0, next: null);

    private VersionNode<TValue>? _next;
    private ValueLocation? _location;

    public VersionNode(long version, TValue? value, bool deleted, uint shardId, int size, VersionNode<TValue>? next, ValueLocation? location = null)
    {
        Version = version;
        Value = value;
        Deleted = deleted;
        ShardId = shardId;
        Size = size;
        _next = next;
        _location = location;
    }

    /// <summary>The commit version that wrote this node.</summary>
    public long Version { get; }

    /// <summary>
    /// Where the value lives on disk when it is too large to keep in memory (then <see cref="Value"/> is default), or
    /// null. Set by the writer; a compaction moves it.
    /// </summary>
    public ValueLocation? Location
    {
        get => Volatile.Read(ref _location);
        set => Volatile.Write(ref _location, value);
    }

    /// <summary>The value, or default when <see cref="Deleted"/> or held on disk (<see cref="Location"/>).</summary>
    public TValue? Value { get; }

    /// <summary>Whether this version is a deletion.</summary>
    public bool Deleted { get; }

    /// <summary>
    /// The shard that holds the record on disk (for live-ratio accounting and compaction). Read and changed by the
    /// collection's writer only: a compaction moves the record to a new shard.
    /// </summary>
    public uint ShardId { get; set; }

    /// <summary>The record's encoded size in bytes.</summary>
    public int Size { get; }

    /// <summary>The version this one replaced, <see cref="Trimmed"/> when cut, or null for the first version.</summary>
    public VersionNode<TValue>? Next
    {
        get => Volatile.Read(ref _next);
        set => Volatile.Write(ref _next, value);
    }
}
