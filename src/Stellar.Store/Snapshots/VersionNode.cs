using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Stellar.Store.Snapshots;

/// <summary>
/// One version of one key: a value or a deletion, stamped with the commit version that wrote it, linked to the
/// version it replaced. Immutable once published, except <see cref="Next"/>, which the writer cuts when no reader
/// can need the older versions any more, and the writer-only <see cref="ShardId"/>.
/// </summary>
/// <remarks>
/// Why this shape: one node is kept per live record, so it holds only what every record needs (48 bytes on a 64-bit
/// runtime: header, version, value, next, shard, size). The deletion flag and the "value is on disk" flag live in the
/// top bits of the size, and a value kept on disk is a <see cref="LargeValueNode{TValue}"/>, which adds its location;
/// so a reader tells the common case (a value in memory) from the rare ones with one compare.
/// </remarks>
internal class VersionNode<TValue>
{
    /// <summary>Marks a chain the writer cut: the versions beyond it are gone.</summary>
    public static readonly VersionNode<TValue> Trimmed = Create(0, default, deleted: true, shardId: 0, size: 0, next: null, location: null);

    /// <summary>Set in <see cref="_sizeAndFlags"/> when this version is a deletion.</summary>
    private const int DeletedFlag = int.MinValue;

    /// <summary>Set in <see cref="_sizeAndFlags"/> when the value is on disk (a <see cref="LargeValueNode{TValue}"/>).</summary>
    private const int OnDiskFlag = 1 << 30;

    private const int SizeMask = OnDiskFlag - 1;

    private readonly int _sizeAndFlags;
    private VersionNode<TValue>? _next;

    protected VersionNode(long version, TValue? value, bool deleted, bool onDisk, uint shardId, int size, VersionNode<TValue>? next)
    {
        Debug.Assert(size is >= 0 and <= SizeMask, "a record's encoded size fits below the flag bits");
        Debug.Assert(!(deleted && onDisk), "a deletion has no value, on disk or not");
        Version = version;
        Value = value;
        ShardId = shardId;
        _sizeAndFlags = size | (deleted ? DeletedFlag : 0) | (onDisk ? OnDiskFlag : 0);
        _next = next;
    }

    /// <summary>A node for a value in memory, a deletion, or (with <paramref name="location"/>) a value on disk.</summary>
    public static VersionNode<TValue> Create(long version, TValue? value, bool deleted, uint shardId, int size, VersionNode<TValue>? next, ValueLocation? location) =>
        location is null
            ? new VersionNode<TValue>(version, value, deleted, onDisk: false, shardId, size, next)
            : new LargeValueNode<TValue>(version, shardId, size, next, location);

    /// <summary>The commit version that wrote this node.</summary>
    public long Version { get; }

    /// <summary>The value, or default when <see cref="Deleted"/> or held on disk (<see cref="Location"/>).</summary>
    public TValue? Value { get; }

    /// <summary>Whether this version is a deletion.</summary>
    public bool Deleted => _sizeAndFlags < 0;

    /// <summary>Whether this version holds its value in memory: neither a deletion nor on disk. The readers' fast path.</summary>
    public bool InMemory
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => (_sizeAndFlags & (DeletedFlag | OnDiskFlag)) == 0;
    }

    /// <summary>
    /// Where the value lives on disk when it is too large to keep in memory (then <see cref="Value"/> is default), or
    /// null. Set by the writer, on a node that has one only: a compaction moves it.
    /// </summary>
    public ValueLocation? Location
    {
        get => (_sizeAndFlags & OnDiskFlag) != 0 ? Unsafe.As<LargeValueNode<TValue>>(this).CurrentLocation : null;
        set
        {
            Debug.Assert(this is LargeValueNode<TValue> && value is not null, "only a value on disk moves to another place on disk");
            ((LargeValueNode<TValue>)this).CurrentLocation = value!;
        }
    }

    /// <summary>
    /// The shard that holds the record on disk (for live-ratio accounting and compaction). Read and changed by the
    /// collection's writer only: a compaction moves the record to a new shard.
    /// </summary>
    public uint ShardId { get; set; }

    /// <summary>The record's encoded size in bytes.</summary>
    public int Size => _sizeAndFlags & SizeMask;

    /// <summary>The version this one replaced, <see cref="Trimmed"/> when cut, or null for the first version.</summary>
    public VersionNode<TValue>? Next
    {
        get => Volatile.Read(ref _next);
        set => Volatile.Write(ref _next, value);
    }
}
