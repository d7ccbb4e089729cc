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
/// top bits of the size, a value kept on disk is a <see cref="LargeValueNode{TValue}"/>, which adds its location, and a
/// record that expires is an <see cref="ExpiringVersionNode{TValue}"/>, which adds its time (and a location, if its value
/// is on disk); so a reader tells the common case (a value in memory that never expires) from the rare ones with one
/// compare.
/// </remarks>
internal class VersionNode<TValue>
{
    /// <summary>Marks a chain the writer cut: the versions beyond it are gone.</summary>
    public static readonly VersionNode<TValue> Trimmed = Create(0, default, deleted: true, shardId: 0, size: 0, next: null, location: null, expiresAt: 0);

    /// <summary>Set in <see cref="_sizeAndFlags"/> when this version is a deletion.</summary>
    private const int DeletedFlag = int.MinValue;

    /// <summary>Set in <see cref="_sizeAndFlags"/> when the value is on disk (a <see cref="LargeValueNode{TValue}"/>).</summary>
    private const int OnDiskFlag = 1 << 30;

    /// <summary>Set in <see cref="_sizeAndFlags"/> when the record expires (an <see cref="ExpiringVersionNode{TValue}"/>).</summary>
    private const int ExpiringFlag = 1 << 29;

    private const int SizeMask = ExpiringFlag - 1;

    private readonly int _sizeAndFlags;
    private VersionNode<TValue>? _next;

    protected VersionNode(long version, TValue? value, bool deleted, bool onDisk, uint shardId, int size, VersionNode<TValue>? next, bool expiring = false)
    {
        Debug.Assert(size is >= 0 and <= SizeMask, "a record's encoded size fits below the flag bits");
        Debug.Assert(!(deleted && onDisk), "a deletion has no value, on disk or not");
        Version = version;
        Value = value;
        ShardId = shardId;
        _sizeAndFlags = size | (deleted ? DeletedFlag : 0) | (onDisk ? OnDiskFlag : 0) | (expiring ? ExpiringFlag : 0);
        _next = next;
    }

    /// <summary>
    /// A node for a value in memory, a deletion, or (with <paramref name="location"/>) a value on disk; one that
    /// expires at <paramref name="expiresAt"/> (UTC ticks) unless that is 0.
    /// </summary>
    public static VersionNode<TValue> Create(long version, TValue? value, bool deleted, uint shardId, int size, VersionNode<TValue>? next, ValueLocation? location, long expiresAt) =>
        expiresAt != 0 ? new ExpiringVersionNode<TValue>(version, value, shardId, size, next, location, expiresAt)
        : location is null ? new VersionNode<TValue>(version, value, deleted, onDisk: false, shardId, size, next)
        : new LargeValueNode<TValue>(version, shardId, size, next, location);

    /// <summary>The commit version that wrote this node.</summary>
    public long Version { get; }

    /// <summary>The value, or default when <see cref="Deleted"/> or held on disk (<see cref="Location"/>).</summary>
    public TValue? Value { get; }

    /// <summary>Whether this version is a deletion.</summary>
    public bool Deleted => _sizeAndFlags < 0;

    /// <summary>When the record expires (UTC ticks), or 0 when it does not.</summary>
    public long ExpiresAt => (_sizeAndFlags & ExpiringFlag) != 0 ? Unsafe.As<ExpiringVersionNode<TValue>>(this).Expiry : 0;

    /// <summary>
    /// Whether a reader at time <paramref name="now"/> (UTC ticks) sees this version as a value: it is neither a
    /// deletion nor expired by then. One compare for a record that does not expire.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool LiveAt(long now) => Plain || (_sizeAndFlags >= 0 && now < Unsafe.As<ExpiringVersionNode<TValue>>(this).Expiry);

    /// <summary>Whether this version is a value that never expires: the readers' fast path, which needs no clock.</summary>
    public bool Plain
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => (_sizeAndFlags & (DeletedFlag | ExpiringFlag)) == 0;
    }

    /// <summary>Whether this version expires (at <see cref="ExpiresAt"/>): its readers must read the clock to tell whether it is live.</summary>
    public bool Expiring => (_sizeAndFlags & ExpiringFlag) != 0;

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
        get => (_sizeAndFlags & OnDiskFlag) == 0 ? null
            : (_sizeAndFlags & ExpiringFlag) == 0 ? Unsafe.As<LargeValueNode<TValue>>(this).CurrentLocation
            : Unsafe.As<ExpiringVersionNode<TValue>>(this).CurrentLocation;
        set
        {
            Debug.Assert((_sizeAndFlags & OnDiskFlag) != 0 && value is not null, "only a value on disk moves to another place on disk");
            if (this is ExpiringVersionNode<TValue> expiring)
            {
                expiring.CurrentLocation = value!;
            }
            else
            {
                ((LargeValueNode<TValue>)this).CurrentLocation = value!;
            }
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

    /// <summary>
    /// The version of a pinned reader's key at <paramref name="version"/>, walking from this head, or null when the key
    /// is deleted or absent then, expired or not. A pinned version is never cut, so the walk never meets the mark.
    /// </summary>
    public VersionNode<TValue>? At(long version)
    {
        for (var current = this; current is not null; current = current.Next)
        {
            Debug.Assert(!ReferenceEquals(current, Trimmed), "a pinned version's chain is never cut");
            if (current.Version <= version)
            {
                return current.Deleted ? null : current;
            }
        }

        return null;
    }
}
