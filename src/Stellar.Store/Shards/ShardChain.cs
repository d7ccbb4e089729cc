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
    private readonly ManifestChange _changeManifest;
    private readonly long _maxShardBytes;
    private readonly Durability _durability;
    private readonly Dictionary<uint, IStorageFile> _files = new();
    private readonly HashSet<uint> _touched = new();
    private readonly MemoryStream _buffer = new();
    private uint _bufferedShard;
    private bool _mustRoll;

    public ShardChain(IStorage storage, ManifestCollection entry, ManifestChange changeManifest, long maxShardBytes, Durability durability)
    {
        _storage = storage;
        _entry = entry;
        _changeManifest = changeManifest;
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
    /// <paramref name="maxBlockLength"/>, moving to a new shard when the current one would exceed its size bound.
    /// A new shard is only planned here: it is created when its first block is appended, after every block
    /// reserved before it (see <see cref="Roll"/>).
    /// </summary>
    public (uint ShardId, ulong Sequence) Reserve(int maxBlockLength)
    {
        if (!_reserving)
        {
            _reservedShard = ActiveShardId;
            _reservedLength = ActiveLength;
            _reserving = true;
        }

        if (_reservedShard == 0 || _mustRoll || (_reservedLength > 0 && _reservedLength + maxBlockLength > _maxShardBytes))
        {
            _reservedShard = _entry.NextShardId++;
            _reservedLength = 0;
            _mustRoll = false;
        }

        _reservedLength += maxBlockLength;
        return (_reservedShard, NextSequence++);
    }

    /// <summary>
    /// Appends an encoded block to the shard it was reserved for, creating that shard if it is new, and returns its
    /// offset there. In Buffered mode the block is handed to the OS at once when <paramref name="readable"/> is set
    /// (readers will read it from the file).
    /// </summary>
    public long Append(uint shardId, ReadOnlySpan<byte> block, bool readable = false)
    {
        if (shardId != ActiveShardId)
        {
            Roll(shardId);
        }

        _touched.Add(shardId);
        if (_durability == Durability.Buffered)
        {
            if (_buffer.Length > 0 && _bufferedShard != shardId)
            {
                DrainBuffer();
            }

            _bufferedShard = shardId;
            var offset = _files[shardId].Length + _buffer.Length;
            _buffer.Write(block);
            if (readable || _buffer.Length >= BufferedModeLimit)
            {
                DrainBuffer();
            }

            return offset;
        }

        var file = _files[shardId];
        var at = file.Length;
        file.Append(block);
        return at;
    }

    /// <summary>Ends a group: makes it as durable as the mode promises.</summary>
    public void EndGroup()
    {
        _reserving = false;
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
        DisposeReadHandles();
    }

    // While a group is being reserved: the shard its last block went to (perhaps planned, not created yet), and the
    // bytes reserved in that shard so far.
    private uint _reservedShard;
    private long _reservedLength;
    private bool _reserving;

    private long ActiveLength => (_files.TryGetValue(ActiveShardId, out var file) ? file.Length : 0) + _buffer.Length;

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

    private void Roll(uint shardId)
    {
        DrainBuffer();

        // The shard being sealed must be whole on disk before the manifest names its successor: recovery cuts a torn
        // tail only from the last shard, so a sealed shard cut short by a power loss would keep the store shut.
        if (_files.TryGetValue(ActiveShardId, out var sealing))
        {
            sealing.FlushToDisk();
            _touched.Remove(ActiveShardId);
        }

        // The file exists (empty) before the manifest names it, and the manifest names it before any block goes
        // in, so a crash at any point leaves either an unlisted empty file or a listed shard. A file already there
        // with data is not ours to replace (open moves the next id past every file it finds): refuse, delete nothing.
        var name = ManifestCollection.ShardFileName(_entry.Id, shardId);
        var file = _storage.Open(name);
        if (file.Length > 0)
        {
            file.Dispose();
            throw new CorruptStoreException(ShardPath(shardId),
                "a new shard was to get this file's name, but the file already exists and holds data that the manifest does not list; it was left untouched");
        }

        _files[shardId] = file;

        // A new list, not Add: another collection may be serializing the manifest, this list included, right now.
        // Not undone when the replace throws (see ManifestChange): the writer faults.
        _changeManifest(() => _entry.Shards = [.. _entry.Shards, shardId]);
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
