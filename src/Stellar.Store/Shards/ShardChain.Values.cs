using System.Collections.Concurrent;
using Stellar.Store.Format;
using Stellar.Store.Snapshots;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

internal sealed partial class ShardChain
{
    /// <summary>
    /// Read-only handles for readers of large values, one per shard, opened on first use. Whoever removes a handle
    /// from here disposes it, and a handle that never got in is disposed by the reader that opened it, so each is
    /// closed exactly once and none outlives its shard's retirement.
    /// </summary>
    private readonly ConcurrentDictionary<uint, IStorageFile> _readHandles = new();

    /// <summary>Shards whose files a compaction retired (ids are never reused): no read handle may be kept on them.</summary>
    private readonly ConcurrentDictionary<uint, byte> _retiredShards = new();

    private int _readsClosed;

    /// <summary>
    /// Any thread: reads the whole block that holds a large value. Throws <see cref="RetiredShardException"/> when a
    /// compaction retired the shard (the caller retries at the value's new location, or at the newest version),
    /// <see cref="ObjectDisposedException"/> once the chain is closed, and <see cref="CorruptBlockException"/> when
    /// the bytes are not that block.
    /// </summary>
    public (byte[] Block, BlockHeader Header) ReadBlockAt(ValueLocation location)
    {
        var path = ShardPath(location.ShardId);
        var bytes = new byte[location.BlockLength];
        try
        {
            if (ReadHandle(location.ShardId).ReadAt(location.BlockOffset, bytes) != bytes.Length)
            {
                throw new CorruptBlockException(path, location.BlockOffset, "the block holding a large value is cut short");
            }
        }
        catch (Exception e) when (e is ObjectDisposedException or IOException && e is not RetiredShardException && IsRetired(location.ShardId))
        {
            // The handle was closed, or the file deleted, by the retirement: not a storage failure.
            throw new RetiredShardException(path, e);
        }

        var header = BlockHeader.TryRead(bytes, out var problem)
            ?? throw new CorruptBlockException(path, location.BlockOffset, problem ?? "bad block header");
        if (header.BlockLength != bytes.Length || header.ShardId != location.ShardId || header.CollectionId != _collectionId)
        {
            throw new CorruptBlockException(path, location.BlockOffset, "the block holding a large value is not where it was written");
        }

        return (bytes, header);
    }

    private bool IsRetired(uint shardId) => _retiredShards.ContainsKey(shardId);

    private IStorageFile ReadHandle(uint shardId)
    {
        while (true)
        {
            ThrowIfUnreadable(shardId);
            if (_readHandles.TryGetValue(shardId, out var cached))
            {
                return cached;
            }

            var opened = _storage.OpenRead(StoreFileNames.Shard(_collectionId, shardId));
            if (!_readHandles.TryAdd(shardId, opened))
            {
                // Another reader cached one first: use that.
                opened.Dispose();
                continue;
            }

            // Retired (or closed) while it was opened: the writer may have looked for it before it was cached, so
            // take it out again here. The writer marks the shard before it removes the handle, so one of the two
            // sees the other's step.
            Interlocked.MemoryBarrier();
            if (IsRetired(shardId) || Volatile.Read(ref _readsClosed) != 0)
            {
                if (_readHandles.TryRemove(new KeyValuePair<uint, IStorageFile>(shardId, opened)))
                {
                    opened.Dispose();
                }

                ThrowIfUnreadable(shardId);
            }

            return opened;
        }
    }

    private void ThrowIfUnreadable(uint shardId)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _readsClosed) != 0, this);
        if (IsRetired(shardId))
        {
            throw new RetiredShardException(ShardPath(shardId));
        }
    }

    /// <summary>Writer only: closes readers' handle on a shard that is gone from the chain, and keeps new ones off it.</summary>
    private void RetireReadHandle(uint shardId)
    {
        _retiredShards.TryAdd(shardId, 0);
        if (_readHandles.TryRemove(shardId, out var handle))
        {
            handle.Dispose();
        }
    }

    private void DisposeReadHandles()
    {
        Volatile.Write(ref _readsClosed, 1);
        foreach (var shardId in _readHandles.Keys)
        {
            if (_readHandles.TryRemove(shardId, out var handle))
            {
                handle.Dispose();
            }
        }
    }
}
