using System.Collections.Concurrent;
using Stellar.Store.Format;
using Stellar.Store.Snapshots;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

internal sealed partial class ShardChain
{
    /// <summary>Read-only handles for readers of large values, one per shard, opened on first use.</summary>
    private readonly ConcurrentDictionary<uint, Lazy<IStorageFile>> _readHandles = new();

    /// <summary>
    /// Any thread: reads the whole block that holds a large value. Throws <see cref="ObjectDisposedException"/> or
    /// <see cref="IOException"/> when the shard was retired meanwhile (the caller retries at the value's new
    /// location) and <see cref="CorruptBlockException"/> when the bytes are not that block.
    /// </summary>
    public (byte[] Block, BlockHeader Header) ReadBlockAt(ValueLocation location)
    {
        var file = _readHandles.GetOrAdd(location.ShardId, id => new Lazy<IStorageFile>(
            () => _storage.OpenRead(ManifestCollection.ShardFileName(_entry.Id, id)))).Value;
        var bytes = new byte[location.BlockLength];
        var path = ShardPath(location.ShardId);
        if (file.ReadAt(location.BlockOffset, bytes) != bytes.Length)
        {
            throw new CorruptBlockException(path, location.BlockOffset, "the block holding a large value is cut short");
        }

        var header = BlockHeader.TryRead(bytes, out var problem)
            ?? throw new CorruptBlockException(path, location.BlockOffset, problem ?? "bad block header");
        if (header.BlockLength != bytes.Length || header.ShardId != location.ShardId || header.CollectionId != _entry.Id)
        {
            throw new CorruptBlockException(path, location.BlockOffset, "the block holding a large value is not where it was written");
        }

        return (bytes, header);
    }

    /// <summary>Writer only: closes readers' handles on shards that are gone from the chain.</summary>
    private void RetireReadHandle(uint shardId)
    {
        if (_readHandles.TryRemove(shardId, out var handle) && handle.IsValueCreated)
        {
            handle.Value.Dispose();
        }
    }

    private void DisposeReadHandles()
    {
        foreach (var shardId in _readHandles.Keys)
        {
            RetireReadHandle(shardId);
        }
    }
}
