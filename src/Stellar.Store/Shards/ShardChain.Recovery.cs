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
        RemoveObsoleteFiles();
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
            _entry.ShardDetails.TryGetValue(shardId, out var details);
            var start = CheckShardHeader(shardId, bytes, details);

            // A sealed shard was flushed before it was sealed, so it cannot end torn, even when it is the last one.
            var isActive = i == _entry.Shards.Count - 1 && details is not { IsSealed: true };
            var first = _blocks.Count;
            var end = ScanShard(shardId, bytes, start, isActive, details, ref lastSequence);
            if (end < bytes.Length)
            {
                TruncatedBytes += bytes.Length - end;
                TruncatedShards.Add(name);
                file.Truncate(end);
                _mustRoll = true;
            }

            CheckSealed(shardId, bytes.Length, details, _blocks.Count > first ? _blocks[^1].Header.Sequence : null);
            if (i == _entry.Shards.Count - 1)
            {
                _activeLastSequence = _blocks.Count > first ? _blocks[^1].Header.Sequence : null;

                // New blocks go only into shards of the current format, and never after a sealed shard's end.
                _mustRoll |= details?.Salt is null || details.IsSealed;
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

    /// <summary>
    /// Checks the header of a shard the manifest records a salt for (format 2 and later) and returns where its blocks
    /// start; a format-1 shard has no header and its blocks start at 0. A header that is missing, damaged, of another
    /// shard, or whose salt is not the manifest's (a file from another copy of the store) is refused.
    /// </summary>
    private long CheckShardHeader(uint shardId, byte[] bytes, ManifestShard? details)
    {
        var path = ShardPath(shardId);
        if (details?.Salt is not { } salt)
        {
            if (bytes.Length >= sizeof(uint) && System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(bytes) == ShardHeader.Magic)
            {
                throw new CorruptBlockException(path, 0, "the shard has a header but the manifest records no salt for it");
            }

            return 0;
        }

        var header = ShardHeader.TryRead(bytes, out var problem) ?? throw new CorruptBlockException(path, 0, problem ?? "bad shard header");
        if (header.CollectionId != _entry.Id || header.ShardId != shardId)
        {
            throw new CorruptBlockException(path, 0, $"the shard header names collection {header.CollectionId} shard {header.ShardId}");
        }

        if (!header.Salt.AsSpan().SequenceEqual(salt))
        {
            throw new CorruptBlockException(path, 0, "the shard's salt is not the one the manifest records: the file comes from another copy of the store");
        }

        return ShardHeader.Size;
    }

    /// <summary>A sealed shard must be exactly as long, and end at exactly the block, as the manifest recorded.</summary>
    private void CheckSealed(uint shardId, long length, ManifestShard? details, ulong? lastSequence)
    {
        if (details is { SealedLength: { } sealedLength } && (length != sealedLength || lastSequence != details.LastSequence))
        {
            throw new CorruptBlockException(ShardPath(shardId), Math.Min(length, sealedLength),
                $"the sealed shard holds {length} bytes up to block {lastSequence?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "none"}; the manifest recorded {sealedLength} bytes up to block {details.LastSequence?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "none"}");
        }
    }

    private long ScanShard(uint shardId, byte[] bytes, long start, bool isActive, ManifestShard? details, ref ulong lastSequence)
    {
        var path = ShardPath(shardId);
        var offset = start;

        // In a shard of format 2 and later, blocks carry consecutive sequences from the recorded first one, so a block
        // removed from the middle or the start (or moved) is found; format-1 shards only promise increasing ones.
        ulong? expected = details?.Salt is null ? null : details.FirstSequence;
        while (offset < bytes.Length)
        {
            var problem = CheckBlock(bytes, offset, out var header);
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

            // A whole, checksummed block in the wrong place is never a torn write: it is refused, not cut.
            if (header.CollectionId != _entry.Id || header.ShardId != shardId)
            {
                throw new CorruptBlockException(path, offset, $"the block belongs to collection {header.CollectionId} shard {header.ShardId}");
            }

            if (header.Sequence <= lastSequence || (expected is { } next && header.Sequence != next))
            {
                throw new CorruptBlockException(path, offset, expected is { } e && header.Sequence != e
                    ? $"block sequence {header.Sequence} is not the expected {e}: a block is missing or out of place"
                    : $"block sequence {header.Sequence} does not follow {lastSequence}");
            }

            _blocks.Add(new ScannedBlock(shardId, offset, header));
            lastSequence = header.Sequence;
            expected = details?.Salt is null ? null : header.Sequence + 1;
            offset += header.BlockLength;
        }

        return offset;
    }

    private static string? CheckBlock(byte[] bytes, long offset, out BlockHeader header)
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
