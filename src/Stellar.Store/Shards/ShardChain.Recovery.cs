using Stellar.Store.Format;

namespace Stellar.Store.Shards;

internal sealed partial class ShardChain
{
    private readonly List<ScannedBlock> _blocks = new();
    private ShardScanner? _scanner;

    /// <summary>Bytes cut from a torn tail at open.</summary>
    public long TruncatedBytes { get; private set; }

    /// <summary>Bytes fed to CRC32C while verifying shards at open: the work of the scan, bounded by the bytes on disk.</summary>
    public long ChecksummedBytes => _scanner?.ChecksummedBytes ?? 0;

    /// <summary>The shard files whose torn tails were cut at open.</summary>
    public List<string> TruncatedShards { get; } = new();

    /// <summary>
    /// Verifies every block of every shard (header, checksum, ids, sequence order) and cuts a torn tail of the
    /// active shard. A bad block anywhere else throws <see cref="CorruptBlockException"/>; a shard the manifest
    /// lists but the directory lacks throws <see cref="CorruptStoreException"/>. When <paramref name="sealActive"/>
    /// is set (even if the active shard is empty), or a tail was cut, the next write starts a new shard, so a
    /// (shard, sequence) pair is never written twice even where lost or cut bytes reached the disk.
    /// </summary>
    public void Scan(bool sealActive)
    {
        RemoveObsoleteFiles();
        ulong lastSequence = 0;
        _scanner = new ShardScanner(_entry.Id);
        for (var i = 0; i < _entry.Shards.Count; i++)
        {
            var shardId = _entry.Shards[i];
            var name = ManifestCollection.ShardFileName(_entry.Id, shardId);
            if (!_storage.Exists(name))
            {
                throw new CorruptStoreException(ShardPath(shardId), "the manifest lists this shard but the file is missing");
            }

            var file = File(shardId);
            var length = file.Length;
            var isActive = i == _entry.Shards.Count - 1;
            var end = _scanner.Scan(file, ShardPath(shardId), shardId, isActive, ref lastSequence, _blocks);
            if (end < length)
            {
                TruncatedBytes += length - end;
                TruncatedShards.Add(name);
                file.Truncate(end);
                _mustRoll = true;
            }
        }

        NextSequence = lastSequence + 1;

        // Even an empty active shard: a power loss can empty a shard whose blocks (and their nonces) reached the
        // device before its length did, and the sequences they used would be handed out again from here.
        if (sealActive && ActiveShardId != 0)
        {
            _mustRoll = true;
        }
    }

    /// <summary>Reads every block found at open, for the typed load.</summary>
    public byte[] ReadBlock(in ScannedBlock block) => Read(block.ShardId, block.Offset, block.Header.BlockLength);

    /// <summary>The path of a shard, for error messages.</summary>
    public string PathOf(uint shardId) => ShardPath(shardId);
}
