using System.Diagnostics;
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

    /// <summary>The active shard's torn tail the scan found, to cut once the whole store was verified: the shard and where its blocks end.</summary>
    private (uint ShardId, long End)? _tornTail;

    /// <summary>
    /// Verifies every shard header and every block of every shard (header, checksum, ids, sequence order; a sealed
    /// shard's length and last block) and finds a torn tail of the active shard, which <see cref="CutTornTail"/> cuts
    /// once every collection was verified, so that a store that refuses to open keeps every byte. A bad block anywhere else throws
    /// <see cref="CorruptBlockException"/>; a shard the manifest lists but the directory lacks throws
    /// <see cref="CorruptStoreException"/>. When <paramref name="sealActive"/> is set (even if the active shard is
    /// empty), a tail was cut, or the active shard is of format 1 or sealed, the next write starts a new shard, so a
    /// (shard, sequence) pair is never written twice even where lost or cut bytes reached the disk.
    /// </summary>
    public void Scan(bool sealActive)
    {
        ulong lastSequence = 0;
        ulong firstListed = 0;
        _scanner = new ShardScanner(_collectionId);
        for (var i = 0; i < _entry.Shards.Count; i++)
        {
            var shardId = _entry.Shards[i];
            var name = StoreFileNames.Shard(_collectionId, shardId);
            if (!_storage.Exists(name))
            {
                throw new CorruptStoreException(ShardPath(shardId), "the manifest lists this shard but the file is missing");
            }

            var file = File(shardId);
            var length = file.Length;
            _entry.ShardDetails.TryGetValue(shardId, out var details);
            var start = CheckShardHeader(shardId, file, details, out var compactBlocks);

            // A sealed shard was flushed before it was sealed, so it cannot end torn, even when it is the last one.
            var isLast = i == _entry.Shards.Count - 1;
            var isActive = isLast && details is not { IsSealed: true };
            var first = _blocks.Count;
            var consecutive = details?.Salt is not null;
            if (consecutive)
            {
                firstListed = Math.Max(firstListed, details!.FirstSequence ?? 0);
            }

            var end = _scanner.Scan(file, ShardPath(shardId), shardId, isActive, start, consecutive ? details!.FirstSequence : null, consecutive,
                ref lastSequence, _blocks);
            CheckBlockLayouts(shardId, first, compactBlocks);
            if (end < length)
            {
                TruncatedBytes += length - end;
                TruncatedShards.Add(name);
                _tornTail = (shardId, end);
                _mustRoll = true;
            }

            ulong? last = _blocks.Count > first ? _blocks[^1].Header.Sequence : null;
            CheckSealed(shardId, end, details, last);
            if (isLast)
            {
                _activeLastSequence = last;

                // New blocks go only into shards of the current format, and never after a sealed shard's end.
                _mustRoll |= details?.Salt is null || details.IsSealed || !compactBlocks;
            }
        }

        // Past the blocks found, and never below the first sequence the manifest lists for a shard: a shard rolled
        // after a compaction starts above the output's low sequences, and when a power loss emptied it, its first
        // block must still carry the sequence the manifest expects. Nor below what a compaction replaced, even with no
        // shard rolled since: a sequence names one block for good, so a change feed's position never names another.
        NextSequence = Math.Max(Math.Max(lastSequence + 1, firstListed), (_entry.CompactedThrough ?? 0) + 1);

        // Even an empty active shard: a power loss can empty a shard whose blocks (and their nonces) reached the
        // device before its length did, and the sequences they used would be handed out again from here.
        if (sealActive && ActiveShardId != 0)
        {
            _mustRoll = true;
        }
    }

    /// <summary>
    /// At open, only once every listed shard of every collection was found and verified: cuts the torn tail the scan
    /// found at the end of the active shard (a write a crash tore, never acknowledged), before anything reads or appends.
    /// </summary>
    public void CutTornTail()
    {
        if (_tornTail is { } torn)
        {
            File(torn.ShardId).Truncate(torn.End);
            _tornTail = null;
        }
    }

    /// <summary>Reads every block found at open, for the typed load.</summary>
    public byte[] ReadBlock(in ScannedBlock block) => Read(block.ShardId, block.Offset, block.Header.BlockLength);

    /// <summary>
    /// Reads a block found at open into <paramref name="destination"/>, which is exactly as long as the block: the
    /// typed load reads into pooled buffers, so a block's bytes are not allocated once more per open. Several threads
    /// may read at once: the scan opened every shard file.
    /// </summary>
    public void ReadBlock(in ScannedBlock block, Span<byte> destination)
    {
        Debug.Assert(destination.Length == block.Header.BlockLength, "the buffer holds exactly the block");
        Debug.Assert(_files.ContainsKey(block.ShardId), "the scan opened the file, so no thread adds to the file table now");
        if (File(block.ShardId).ReadAt(block.Offset, destination) != destination.Length)
        {
            throw new CorruptBlockException(ShardPath(block.ShardId), block.Offset, "the block is cut short");
        }
    }

    /// <summary>The path of a shard, for error messages.</summary>
    public string PathOf(uint shardId) => ShardPath(shardId);

    /// <summary>
    /// Checks the header of a shard the manifest records a salt for (format 2 and later) and returns where its blocks
    /// start; a format-1 shard has no header and its blocks start at 0. A header that is missing, damaged, of another
    /// shard, or whose salt is not the manifest's (a file from another copy of the store) is refused.
    /// </summary>
    private long CheckShardHeader(uint shardId, Storage.IStorageFile file, ManifestShard? details, out bool compactBlocks)
    {
        compactBlocks = false;
        var path = ShardPath(shardId);
        Span<byte> bytes = stackalloc byte[ShardHeader.Size];
        var read = file.ReadAt(0, bytes);
        if (details?.Salt is not { } salt)
        {
            if (read >= sizeof(uint) && System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(bytes) == ShardHeader.Magic)
            {
                throw new CorruptBlockException(path, 0, "the shard has a header but the manifest records no salt for it");
            }

            return 0;
        }

        var header = ShardHeader.TryRead(bytes[..read], out var problem) ?? throw new CorruptBlockException(path, 0, problem ?? "bad shard header");
        if (header.CollectionId != _collectionId || header.ShardId != shardId)
        {
            throw new CorruptBlockException(path, 0, $"the shard header names collection {header.CollectionId} shard {header.ShardId}");
        }

        if (!header.Salt.AsSpan().SequenceEqual(salt))
        {
            throw new CorruptBlockException(path, 0, "the shard's salt is not the one the manifest records: the file comes from another copy of the store");
        }

        compactBlocks = header.HasCompactBlocks;
        return ShardHeader.Size;
    }

    /// <summary>
    /// A shard holds blocks of its own format only (compact headers in a format-3 shard, fixed ones before): a whole,
    /// checksummed block of the other layout was put there, and is refused like any block in the wrong place.
    /// </summary>
    private void CheckBlockLayouts(uint shardId, int first, bool compactBlocks)
    {
        for (var b = first; b < _blocks.Count; b++)
        {
            if (_blocks[b].Header.Compact != compactBlocks)
            {
                throw new CorruptBlockException(ShardPath(shardId), _blocks[b].Offset,
                    $"a block with a {(compactBlocks ? "fixed" : "compact")} header in a shard of format {(compactBlocks ? ShardHeader.CurrentVersion : "1 or 2")}");
            }
        }
    }

    /// <summary>A sealed shard must be exactly as long, and end at exactly the block, as the manifest recorded.</summary>
    private void CheckSealed(uint shardId, long length, ManifestShard? details, ulong? lastSequence)
    {
        if (details is { SealedLength: { } sealedLength } && (length != sealedLength || lastSequence != details.LastSequence))
        {
            var invariant = System.Globalization.CultureInfo.InvariantCulture;
            throw new CorruptBlockException(ShardPath(shardId), Math.Min(length, sealedLength),
                $"the sealed shard holds {length} bytes up to block {lastSequence?.ToString(invariant) ?? "none"}; the manifest recorded {sealedLength} bytes up to block {details.LastSequence?.ToString(invariant) ?? "none"}");
        }
    }
}
