using System.Diagnostics;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// How much of a collection's shard files is live: raw record bytes per shard, all of them and those readers can
/// still see, their totals, and from them whether enough garbage gathered to compact on its own.
/// </summary>
/// <remarks>
/// Thread safety: the writer changes it (at load, publish and a compaction's finish); <see cref="StoredBytes"/> and
/// <see cref="LiveBytes"/> may be read from any thread, each as of some recent write.
/// </remarks>
internal sealed class ShardUsageLedger
{
    private readonly Dictionary<uint, ShardUsage> _usage = new();
    private readonly double _compactionThreshold;
    private readonly long _autoCompactionDeadBytes;
    private long _storedBytes;
    private long _liveBytes;
    private long _autoCompactionFloor;

    /// <param name="compactionThreshold">The live ratio under which the collection compacts on its own (0: never).</param>
    /// <param name="autoCompactionDeadBytes">The least dead bytes worth an automatic compaction.</param>
    public ShardUsageLedger(double compactionThreshold, long autoCompactionDeadBytes)
    {
        _compactionThreshold = compactionThreshold;
        _autoCompactionDeadBytes = autoCompactionDeadBytes;
    }

    /// <summary>Raw bytes of every record in the shards, live or dead.</summary>
    public long StoredBytes => Volatile.Read(ref _storedBytes);

    /// <summary>Raw bytes of the records readers can see.</summary>
    public long LiveBytes => Volatile.Read(ref _liveBytes);

    /// <summary>Writer only: counts a record of <paramref name="size"/> bytes stored in <paramref name="shardId"/>, live or not.</summary>
    public void Add(uint shardId, int size, bool live)
    {
        var usage = Usage(shardId);
        usage.Total += size;
        var stored = _storedBytes + size;
        var liveBytes = _liveBytes;
        if (live)
        {
            usage.Live += size;
            liveBytes += size;
        }

        Set(stored, liveBytes);
    }

    /// <summary>
    /// Writer only (at load): counts <paramref name="bytes"/> of records already added to <paramref name="shardId"/>
    /// as live after all (a whole shard's at once, so a long).
    /// </summary>
    public void MarkLive(uint shardId, long bytes)
    {
        Debug.Assert(_usage.ContainsKey(shardId), "the records were added first");
        Usage(shardId).Live += bytes;
        Set(_storedBytes, _liveBytes + bytes);
    }

    /// <summary>Writer only: counts a record written to <paramref name="shardId"/>, and the one it replaced as dead.</summary>
    public void Account<TValue>(uint shardId, int size, bool deleted, VersionNode<TValue>? replaced)
    {
        if (replaced is { Deleted: false } && _usage.TryGetValue(replaced.ShardId, out var old))
        {
            old.Live -= replaced.Size;
            Set(_storedBytes, _liveBytes - replaced.Size);
        }

        Add(shardId, size, live: !deleted);
    }

    /// <summary>Writer only: forgets <paramref name="shards"/>, which a compaction replaced.</summary>
    public void Remove(IEnumerable<uint> shards)
    {
        foreach (var shardId in shards)
        {
            if (_usage.Remove(shardId, out var usage))
            {
                Set(_storedBytes - usage.Total, _liveBytes - usage.Live);
            }
        }
    }

    /// <summary>Whether the collection compacts on its own at all (a compaction threshold above 0).</summary>
    public bool CompactsOnItsOwn => _compactionThreshold > 0;

    /// <summary>Writer only, after a commit: whether dead records passed the threshold and the floor.</summary>
    public bool WantsCompaction()
    {
        var dead = _storedBytes - _liveBytes;
        return _compactionThreshold > 0
            && dead >= _autoCompactionDeadBytes
            && dead >= Volatile.Read(ref _autoCompactionFloor)
            && _liveBytes < _compactionThreshold * _storedBytes;
    }

    /// <summary>Any thread: holds automatic compaction back until this many more dead bytes gather (after a failed run).</summary>
    public void DeferAutoCompaction() => Volatile.Write(ref _autoCompactionFloor, StoredBytes - LiveBytes + _autoCompactionDeadBytes);

    private void Set(long stored, long live)
    {
        Debug.Assert(0 <= live && live <= stored, "live bytes are a part of the stored bytes");
        Volatile.Write(ref _storedBytes, stored);
        Volatile.Write(ref _liveBytes, live);
    }

    private ShardUsage Usage(uint shardId)
    {
        if (!_usage.TryGetValue(shardId, out var usage))
        {
            usage = new ShardUsage();
            _usage[shardId] = usage;
        }

        return usage;
    }

    /// <summary>Raw record bytes of one shard: all records, and those readers can still see.</summary>
    private sealed class ShardUsage
    {
        public long Total { get; set; }

        public long Live { get; set; }
    }
}
