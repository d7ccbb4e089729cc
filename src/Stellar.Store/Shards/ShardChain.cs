using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

/// <summary>
/// The append-only shard files of one collection, oldest first; only the last (active) one is appended to, and
/// sealed shards are never changed. Verification at open lives in <c>ShardChain.Recovery.cs</c>.
/// </summary>
/// <remarks>
/// Thread safety: single-writer by contract. The collection's writer calls <see cref="Reserve"/>,
/// <see cref="Append"/>, <see cref="EndGroup"/> and <see cref="Flush"/>, never two at once; nothing here locks.
/// </remarks>
internal sealed partial class ShardChain : IDisposable
{
    /// <summary>Buffered mode hands blocks to the OS once this many bytes have gathered.</summary>
    private const int BufferedModeLimit = 1 << 20;

    private readonly IStorage _storage;
    private readonly ManifestCollection _entry;
    private readonly Action _saveManifest;
    private readonly long _maxShardBytes;
    private readonly Durability _durability;
    private readonly Dictionary<uint, IStorageFile> _files = new();
    private readonly HashSet<uint> _touched = new();
    private readonly MemoryStream _buffer = new();
    private uint _bufferedShard;
    private bool _mustRoll;

    public ShardChain(IStorage storage, ManifestCollection entry, Action saveManifest, long maxShardBytes, Durability durability)
    {
        _storage = storage;
        _entry = entry;
        _saveManifest = saveManifest;
        _maxShardBytes = maxShardBytes;
        _durability = durability;
    }

    /// <summary>The collection id every block of this chain carries.</summary>
    public uint CollectionId => _entry.Id;

    /// <summary>The next block sequence to hand out.</summary>
    public ulong NextSequence { get; private set; } = 1;

    /// <summary>The blocks found at open, in replay order.</summary>
    public IReadOnlyList<ScannedBlock> Blocks => _blocks;

    /// <summary>The active shard's id (0 before the first shard exists).</summary>
    public uint ActiveShardId => _entry.Shards.Count == 0 ? 0 : _entry.Shards[^1];

    /// <summary>
    /// Picks the shard and sequence of the next block, whose encoded length is at most
    /// <paramref name="maxBlockLength"/>, rolling to a new shard when the active one would exceed its size bound.
    /// </summary>
    public (uint ShardId, ulong Sequence) Reserve(int maxBlockLength)
    {
        var active = ActiveShardId;
        if (active == 0 || _mustRoll || (ActiveLength > 0 && ActiveLength + maxBlockLength > _maxShardBytes))
        {
            active = Roll();
        }

        _pendingLength += maxBlockLength;
        return (active, NextSequence++);
    }

    /// <summary>Appends an encoded block to the shard it was reserved for.</summary>
    public void Append(uint shardId, ReadOnlySpan<byte> block)
    {
        _touched.Add(shardId);
        if (_durability == Durability.Buffered)
        {
            if (_buffer.Length > 0 && _bufferedShard != shardId)
            {
                DrainBuffer();
            }

            _bufferedShard = shardId;
            _buffer.Write(block);
            if (_buffer.Length >= BufferedModeLimit)
            {
                DrainBuffer();
            }

            return;
        }

        _files[shardId].Append(block);
    }

    /// <summary>Ends a group: makes it as durable as the mode promises.</summary>
    public void EndGroup()
    {
        _pendingLength = 0;
        if (_durability == Durability.Fsync)
        {
            foreach (var shard in _touched)
            {
                _files[shard].FlushToDisk();
            }

            _touched.Clear();
        }
    }

    /// <summary>Writes anything buffered to the OS and flushes every shard written since the last flush (fsync).</summary>
    public void Flush()
    {
        DrainBuffer();
        foreach (var shard in _touched)
        {
            _files[shard].FlushToDisk();
        }

        _touched.Clear();
    }

    /// <summary>Reads <paramref name="length"/> bytes of a shard at <paramref name="offset"/>.</summary>
    public byte[] Read(uint shardId, long offset, int length)
    {
        var bytes = new byte[length];
        var read = File(shardId).ReadAt(offset, bytes);
        if (read != length)
        {
            throw new CorruptBlockException(ShardPath(shardId), offset, "the block is cut short");
        }

        return bytes;
    }

    public void Dispose()
    {
        foreach (var file in _files.Values)
        {
            file.Dispose();
        }

        _files.Clear();
    }

    private long _pendingLength;

    private long ActiveLength => (_files.TryGetValue(ActiveShardId, out var file) ? file.Length : 0) + _buffer.Length + _pendingLength;

    private string ShardPath(uint shardId) => Path.Combine(_storage.Location, ManifestCollection.ShardFileName(_entry.Id, shardId));

    private IStorageFile File(uint shardId)
    {
        if (!_files.TryGetValue(shardId, out var file))
        {
            file = _storage.Open(ManifestCollection.ShardFileName(_entry.Id, shardId));
            _files[shardId] = file;
        }

        return file;
    }

    private uint Roll()
    {
        DrainBuffer();

        // The file exists (empty) before the manifest names it, and the manifest names it before any block goes
        // in, so a crash at any point leaves either an unlisted empty file or a listed shard.
        var shardId = _entry.NextShardId++;
        var name = ManifestCollection.ShardFileName(_entry.Id, shardId);
        _storage.Delete(name);
        _files[shardId] = _storage.Open(name);
        // A new list, not Add: another collection may be serializing the manifest, this list included, right now.
        _entry.Shards = [.. _entry.Shards, shardId];
        _saveManifest();
        _mustRoll = false;
        _pendingLength = 0;
        return shardId;
    }

    private void DrainBuffer()
    {
        if (_buffer.Length == 0)
        {
            return;
        }

        _files[_bufferedShard].Append(_buffer.GetBuffer().AsSpan(0, (int)_buffer.Length));
        _buffer.SetLength(0);
    }
}
