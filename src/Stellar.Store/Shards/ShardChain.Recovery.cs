using Stellar.Store.Format;

namespace Stellar.Store.Shards;

internal sealed partial class ShardChain
{
    private readonly List<ScannedBlock> _blocks = new();

    /// <summary>Bytes cut from a torn tail at open.</summary>
    public long TruncatedBytes { get; private set; }

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
        ulong lastSequence = 0;
        for (var i = 0; i < _entry.Shards.Count; i++)
        {
            var shardId = _entry.Shards[i];
            var name = ManifestCollection.ShardFileName(_entry.Id, shardId);
            if (!_storage.Exists(name))
            {
                throw new CorruptStoreException(ShardPath(shardId), "the manifest lists this shard but the file is missing");
            }

            var file = File(shardId);
            var bytes = new byte[file.Length];
            file.ReadAt(0, bytes);
            var isActive = i == _entry.Shards.Count - 1;
            var end = ScanShard(shardId, bytes, isActive, ref lastSequence);
            if (end < bytes.Length)
            {
                TruncatedBytes += bytes.Length - end;
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

    private long ScanShard(uint shardId, byte[] bytes, bool isActive, ref ulong lastSequence)
    {
        var path = ShardPath(shardId);
        long offset = 0;
        while (offset < bytes.Length)
        {
            var problem = CheckBlock(bytes, offset, shardId, lastSequence, out var header);
            if (problem is not null)
            {
                // Only the end of the active shard can be torn, and a torn tail has nothing valid after it.
                // Anything else is damage to committed data: refuse rather than drop it.
                if (!isActive || HasValidBlockAfter(bytes, offset + 1, shardId))
                {
                    throw new CorruptBlockException(path, offset, problem);
                }

                return offset;
            }

            _blocks.Add(new ScannedBlock(shardId, offset, header));
            lastSequence = header.Sequence;
            offset += header.BlockLength;
        }

        return offset;
    }

    private string? CheckBlock(byte[] bytes, long offset, uint shardId, ulong lastSequence, out BlockHeader header)
    {
        header = default;
        var span = bytes.AsSpan((int)offset);
        var parsed = BlockHeader.TryRead(span, out var problem);
        if (parsed is null)
        {
            return problem;
        }

        header = parsed.Value;
        if (header.BlockLength > span.Length)
        {
            return "the block runs past the end of the file";
        }

        if (!BlockHeader.HasValidBlockCrc(span[..header.BlockLength]))
        {
            return "block checksum mismatch";
        }

        if (header.CollectionId != _entry.Id || header.ShardId != shardId)
        {
            return $"the block belongs to collection {header.CollectionId} shard {header.ShardId}";
        }

        if (header.Sequence <= lastSequence)
        {
            return $"block sequence {header.Sequence} does not follow {lastSequence}";
        }

        return null;
    }

    private static bool HasValidBlockAfter(byte[] bytes, long from, uint shardId)
    {
        for (var p = from; p + BlockHeader.Size <= bytes.Length; p++)
        {
            var span = bytes.AsSpan((int)p);
            if (System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(span) != BlockHeader.Magic)
            {
                continue;
            }

            var header = BlockHeader.TryRead(span, out _);
            if (header is { } h && h.BlockLength <= span.Length && h.ShardId == shardId && BlockHeader.HasValidBlockCrc(span[..h.BlockLength]))
            {
                return true;
            }
        }

        return false;
    }
}
