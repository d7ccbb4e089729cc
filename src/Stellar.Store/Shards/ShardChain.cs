using System.Collections.Concurrent;
using Stellar.Store.Diagnostics;
using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

/// <summary>
/// The append-only shard files of one collection, oldest first; only the last (active) one is appended to, and
/// sealed shards are never changed. Verification at open lives in <c>ShardChain.Recovery.cs</c>.
/// </summary>
/// <remarks>
/// Thread safety: single-writer by contract. The collection's writer calls <see cref="Reserve"/>,
/// <see cref="Append"/>, <see cref="EndGroup"/> and <see cref="Flush"/>, never two at once; nothing here locks. Shard
/// ids and every change to the manifest are requests to <see cref="ManifestStore"/>, which serializes them with the
/// other collections' requests.
/// </remarks>
internal sealed partial class ShardChain : IDisposable
{
    /// <summary>Buffered mode hands blocks to the OS once this many bytes have gathered.</summary>
    private const int BufferedModeLimit = 1 << 20;

    /// <summary>
    /// In WriteThrough mode, the bytes appended to the active shard after which a group's end asks for a background
    /// fsync: a shard is fsynced when it is sealed, on the writer's path, and without this the whole shard's unsynced
    /// bytes waited there (tens of milliseconds per roll), where Fsync mode had synced them group by group.
    /// </summary>
    private const long WritebackBytes = 1 << 20;

    private readonly IStorage _storage;
    private readonly ManifestStore _manifest;
    private readonly uint _collectionId;
    private readonly long _maxShardBytes;
    private readonly Durability _durability;
    private readonly Dictionary<uint, IStorageFile> _files = new();
    private readonly HashSet<uint> _touched = new();
    private readonly MemoryStream _buffer = new();
    private readonly DeviceThread _deviceThread;

    /// <summary>
    /// The salt of every shard that has one: listed, planned, or retired by a compaction (kept for the session, so
    /// that a reader racing the retirement fails on the missing file and retries, never on a wrong key). Any thread.
    /// </summary>
    private readonly ConcurrentDictionary<uint, byte[]> _salts = new();
    private uint _bufferedShard;
    private bool _mustRoll;

    /// <summary>The sequence of the last block in the active shard, null while it holds none.</summary>
    private ulong? _activeLastSequence;

    /// <summary>Bytes appended to the active shard since its last writeback hint (WriteThrough mode).</summary>
    private long _sinceWriteback;

    /// <summary>
    /// This collection's manifest entry as last published by <see cref="ManifestStore"/>: only this chain's requests
    /// replace it, so it is read here without the manifest's lock and refreshed after every request, whether or not
    /// the request threw (a replace that throws is not undone).
    /// </summary>
    private ManifestCollection _entry;

    /// <summary>
    /// The collection's next shard id and kept shards as the manifest on disk recorded them when the chain was made: an
    /// open keeps shard files the manifest never handed out and moves the next id past them, and the unit log's settling
    /// must still tell those apart.
    /// </summary>
    private readonly uint _handedOutAtOpen;
    private readonly HashSet<uint> _keptAtOpen;

    /// <summary>
    /// The chain of collection <paramref name="collectionId"/>, whose manifest entry <paramref name="manifest"/> owns; it
    /// times its fsyncs into <paramref name="diagnostics"/> (<see cref="CollectionDiagnostics.None"/> when not given).
    /// </summary>
    public ShardChain(IStorage storage, ManifestStore manifest, uint collectionId, long maxShardBytes, Durability durability, CollectionDiagnostics? diagnostics = null)
    {
        Diagnostics = diagnostics ?? CollectionDiagnostics.None;
        _storage = storage;
        _manifest = manifest;
        _collectionId = collectionId;
        _deviceThread = new DeviceThread($"stellar-fsync-c{collectionId}");
        _entry = manifest.Collection(collectionId);
        _handedOutAtOpen = _entry.NextShardId;
        _keptAtOpen = _entry.KeptShards?.ToHashSet() ?? [];
        _maxShardBytes = maxShardBytes;
        _durability = durability;
        CountSmallSealedShards();
        _mergeAt = _smallSealedShards + SmallShardsPerMerge;
        foreach (var (shardId, details) in _entry.ShardDetails)
        {
            if (details.Salt is { } salt)
            {
                _salts[shardId] = salt;
            }
        }
    }

    /// <summary>What the collection reports through: its fsyncs here, its commits in the pipeline.</summary>
    public CollectionDiagnostics Diagnostics { get; }

    /// <summary>Whether ending a group fsyncs (<see cref="Durability.Fsync"/>).</summary>
    public bool SyncsEachGroup => _durability == Durability.Fsync;

    /// <summary>The collection id every block of this chain carries.</summary>
    public uint CollectionId => _collectionId;

    /// <summary>The next block sequence to hand out.</summary>
    public ulong NextSequence { get; private set; } = 1;

    /// <summary>The blocks found at open, in replay order.</summary>
    public IReadOnlyList<ScannedBlock> Blocks => _blocks;

    /// <summary>Whether the manifest lists <paramref name="shardId"/> in this chain (a compaction's swap removes the shards it replaced).</summary>
    public bool Lists(uint shardId) => _entry.Shards.Contains(shardId);

    /// <summary>
    /// Whether the open keeps <paramref name="shardId"/>'s file, if there is one, without loading it: the manifest it was
    /// opened from never handed the id out, or records it as kept (see <see cref="ManifestCollection.KeptShards"/>).
    /// </summary>
    public bool IgnoresAtOpen(uint shardId) => shardId >= _handedOutAtOpen || _keptAtOpen.Contains(shardId);

    /// <summary>The active shard's id (0 before the first shard exists).</summary>
    public uint ActiveShardId => _entry.Shards.Count == 0 ? 0 : _entry.Shards[^1];

    /// <summary>
    /// Any thread: the salt a shard's blocks are encrypted under (see <see cref="ShardHeader"/>), for listed and
    /// planned shards alike; empty for a format-1 shard.
    /// </summary>
    public ReadOnlySpan<byte> SaltOf(uint shardId) => _salts.TryGetValue(shardId, out var salt) ? salt : default;

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

        if (_reservedShard == 0 || _mustRoll || (_reservedLength > ShardHeader.Size && _reservedLength + maxBlockLength > _maxShardBytes))
        {
            _reservedShard = _manifest.ReserveShardId(_collectionId);
            Refresh();
            _salts[_reservedShard] = ShardHeader.New(_collectionId, _reservedShard).Salt;
            _reservedLength = ShardHeader.Size;
            _mustRoll = false;
        }

        _reservedLength += maxBlockLength;
        return (_reservedShard, NextSequence++);
    }

    /// <summary>
    /// Appends an encoded block, whose sequence is <paramref name="sequence"/>, to the shard it was reserved for,
    /// creating that shard if it is new, and returns its offset there. In Buffered mode the block is handed to the OS
    /// at once when <paramref name="readable"/> is set (readers will read it from the file).
    /// </summary>
    public long Append(uint shardId, ulong sequence, ReadOnlySpan<byte> block, bool readable = false)
    {
        if (shardId != ActiveShardId)
        {
            Roll(shardId, sequence);
        }

        System.Diagnostics.Debug.Assert(_activeLastSequence is null || sequence == _activeLastSequence + 1, "blocks of a shard have consecutive sequences");
        _activeLastSequence = sequence;
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
        _sinceWriteback += block.Length;
        return at;
    }

    /// <summary>
    /// Before the writer starts: gives a collection without a shard its first one, so that its first write does not
    /// wait for the shard's creation (a file, two fsyncs and a manifest replace: most of a fresh store's first 500
    /// awaited inserts' time). A storage failure here is left to the first write: it creates the shard, or (when the
    /// failed manifest replace may have left the shard listed in memory only) rolls to a new one, and meets any failure
    /// then, faulting the collection as a failed roll does.
    /// </summary>
    public void StartFirstShard()
    {
        if (ActiveShardId != 0)
        {
            return;
        }

        try
        {
            var shardId = _manifest.ReserveShardId(_collectionId);
            Refresh();
            _salts[shardId] = ShardHeader.New(_collectionId, shardId).Salt;
            Roll(shardId, NextSequence);
        }
        catch (IOException)
        {
            // Nothing is undone (see ManifestStore): the manifest's memory holds whatever the replace did. When that
            // lists the shard, the disk may not: the first write rolls to a new shard, whose replace lists both or
            // fails that write and faults the collection, so no write is acknowledged into a shard open may not find.
            _mustRoll = ActiveShardId != 0;
        }
    }

    /// <summary>Ends a group: makes it as durable as the mode promises.</summary>
    public void EndGroup()
    {
        _reserving = false;
        if (_durability == Durability.Fsync)
        {
            foreach (var shard in _touched)
            {
                Sync(_files[shard], shard);
            }

            _touched.Clear();
        }
        else if (_durability == Durability.WriteThrough && _sinceWriteback >= WritebackBytes && _files.TryGetValue(ActiveShardId, out var active))
        {
            active.StartWriteback();
            _sinceWriteback = 0;
        }
    }

    /// <summary>Writes anything buffered to the OS and flushes every shard written since the last flush (fsync).</summary>
    public void Flush()
    {
        DrainBuffer();
        foreach (var shard in _touched)
        {
            Sync(_files[shard], shard);
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

    /// <summary>
    /// Runs <paramref name="blocking"/>, work that waits on the device (a group that ends with an fsync, a flush), on the
    /// collection's own thread (see <see cref="DeviceThread"/>).
    /// </summary>
    public Task RunOnDeviceThreadAsync(Action blocking) => _deviceThread.RunAsync(blocking);

    public void Dispose()
    {
        _deviceThread.Dispose();
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

    private string ShardPath(uint shardId) => Path.Combine(_storage.Location, StoreFileNames.Shard(_collectionId, shardId));

    private IStorageFile File(uint shardId)
    {
        if (!_files.TryGetValue(shardId, out var file))
        {
            file = _storage.Open(StoreFileNames.Shard(_collectionId, shardId));
            _files[shardId] = file;
        }

        return file;
    }

    private void Roll(uint shardId, ulong firstSequence)
    {
        DrainBuffer();

        // The shard being sealed must be whole on disk before the manifest names its successor: recovery cuts a torn
        // tail only from the last shard, so a sealed shard cut short by a power loss would keep the store shut.
        var sealingId = ActiveShardId;
        long? sealedLength = null;
        if (_files.TryGetValue(sealingId, out var sealing))
        {
            Sync(sealing, sealingId);
            _touched.Remove(sealingId);
            sealedLength = sealing.Length;
        }

        // The file and its header are durable before the manifest names it, and the manifest names it before any
        // block goes in, so a crash at any point leaves either an unlisted file or a listed shard with its header. A
        // file already there with data is not ours to replace (open moves the next id past every file it finds):
        // refuse, delete nothing.
        var file = _storage.Open(StoreFileNames.Shard(_collectionId, shardId));
        if (file.Length > 0)
        {
            file.Dispose();
            throw new CorruptStoreException(ShardPath(shardId),
                "a new shard was to get this file's name, but the file already exists and holds data that the manifest does not list; it was left untouched");
        }

        _files[shardId] = file;
        file.Append(new ShardHeader(_collectionId, shardId, _salts[shardId]).ToArray());
        Sync(file, shardId);

        // Not undone when the replace throws (see ManifestStore): the exception faults the writer.
        try
        {
            _manifest.RollShard(_collectionId, shardId, _salts[shardId], firstSequence, sealedLength, _activeLastSequence);
        }
        finally
        {
            Refresh();
        }

        _activeLastSequence = null;
        _sinceWriteback = 0;
    }

    /// <summary>Flushes a shard file to disk (fsync), timed (see <see cref="CollectionDiagnostics.Fsync"/>).</summary>
    private void Sync(IStorageFile file, uint shardId) => Diagnostics.Fsync(file, _collectionId, shardId);

    /// <summary>Reads this collection's entry again after a request to the manifest changed it.</summary>
    private void Refresh()
    {
        _entry = _manifest.Collection(_collectionId);
        CountSmallSealedShards();
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
