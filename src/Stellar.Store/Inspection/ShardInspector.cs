using Microsoft.Win32.SafeHandles;
using Stellar.Store.Format;

namespace Stellar.Store.Inspection;

/// <summary>
/// Reads one shard file of a collection, read-only, and checks each block the way an open does (header, checksum,
/// authentication, decompression, record framing, ids, sequence order; a sealed shard's length), but never stops at
/// the first bad one and never changes the file: after a bad stretch it looks for the next block that passes its
/// header and checksum and goes on from there, so that every bad stretch is reported and every good block after one
/// is still read.
/// </summary>
/// <remarks>
/// <para>Unlike the open's scanner, the search for the next block has no budget: a tool run over a damaged file may
/// take time quadratic in the bytes of a crafted file of fake headers, which an open must not.</para>
/// <para>Thread safety: one instance per shard read, used by one thread.</para>
/// </remarks>
internal sealed class ShardInspector
{
    private const int SearchWindow = 1024 * 1024;

    private readonly BlockCodec _codec;
    private readonly uint _collectionId;
    private readonly bool _keepRecords;
    private readonly List<InspectedBlock> _found = new();
    private SafeFileHandle _file = null!;
    private string _path = "";
    private uint _shardId;
    private byte[] _salt = [];
    private long _length;

    /// <param name="codec">Decodes the store's blocks (its cipher when the store is encrypted).</param>
    /// <param name="collectionId">The collection the shard belongs to.</param>
    /// <param name="keepRecords">Whether good blocks keep their records (verify only counts them).</param>
    public ShardInspector(BlockCodec codec, uint collectionId, bool keepRecords)
    {
        _codec = codec;
        _collectionId = collectionId;
        _keepRecords = keepRecords;
    }

    /// <summary>
    /// Reads the shard at <paramref name="path"/>, whose manifest details are <paramref name="details"/> (null for a
    /// format-1 shard not yet sealed), and returns its blocks and bad stretches in file order.
    /// <paramref name="lastSequence"/> is the last good sequence of the collection before this shard, and after it.
    /// </summary>
    public List<InspectedBlock> Read(string path, uint shardId, ManifestShard? details, bool isActive, ref ulong lastSequence)
    {
        _path = path;
        _shardId = shardId;
        _salt = details?.Salt ?? [];
        using (_file = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete))
        {
            _length = RandomAccess.GetLength(_file);
            var start = CheckShardHeader(details, out var compact);
            var consecutive = details?.Salt is not null;
            ulong? expected = consecutive ? details!.FirstSequence : null;
            var offset = start;
            while (offset < _length)
            {
                var problem = TryBlock(offset, out var header, out var records, out var unit);
                if (problem is null)
                {
                    problem = header!.Value.Compact != compact
                        ? $"a block with a {(compact ? "fixed" : "compact")} header in a shard of the other format"
                        : header.Value.Sequence <= lastSequence
                            ? $"block sequence {header.Value.Sequence} does not follow {lastSequence}"
                            : expected is { } next && header.Value.Sequence != next
                                ? $"block sequence {header.Value.Sequence} is not the expected {next}: a block is missing or out of place"
                                : null;
                }

                if (problem is null)
                {
                    var good = header!.Value;
                    _found.Add(new InspectedBlock(path, shardId, offset, good.BlockLength, good, records, unit, null));
                    lastSequence = good.Sequence;
                    expected = consecutive ? good.Sequence + 1 : null;
                    offset += good.BlockLength;
                    continue;
                }

                // The blocks in a bad stretch are lost, and with them the sequences the next good block may follow.
                var resume = FindNextBlock(offset + 1, lastSequence) ?? _length;
                var tornTail = isActive && resume == _length;
                _found.Add(new InspectedBlock(path, shardId, offset, resume - offset, header, [], null, problem, tornTail));
                expected = null;
                offset = resume;
            }

            CheckSealed(details);
        }

        return _found;
    }

    /// <summary>Checks the shard header the manifest expects and returns where the blocks start.</summary>
    private long CheckShardHeader(ManifestShard? details, out bool compact)
    {
        compact = false;
        Span<byte> bytes = stackalloc byte[ShardHeader.Size];
        var read = RandomAccess.Read(_file, bytes, 0);
        if (details?.Salt is not { } salt)
        {
            if (read >= sizeof(uint) && System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(bytes) == ShardHeader.Magic)
            {
                AddBad(0, Math.Min(_length, ShardHeader.Size), "the shard has a header but the manifest records no salt for it");
                return Math.Min(_length, ShardHeader.Size);
            }

            return 0;
        }

        // Blocks are still read after a bad header: the manifest holds the salt that decrypts them.
        compact = true;
        var header = ShardHeader.TryRead(bytes[..read], out var problem);
        if (header is { } h)
        {
            compact = h.HasCompactBlocks;
            problem = h.CollectionId != _collectionId || h.ShardId != _shardId
                ? $"the shard header names collection {h.CollectionId} shard {h.ShardId}"
                : !h.Salt.AsSpan().SequenceEqual(salt)
                    ? "the shard's salt is not the one the manifest records: the file comes from another copy of the store"
                    : null;
        }

        if (problem is not null)
        {
            AddBad(0, Math.Min(_length, ShardHeader.Size), problem);
        }

        return Math.Min(_length, ShardHeader.Size);
    }

    /// <summary>A sealed shard must be exactly as long, and end at exactly the block, as the manifest recorded.</summary>
    private void CheckSealed(ManifestShard? details)
    {
        if (details is not { SealedLength: { } sealedLength })
        {
            return;
        }

        var last = _found.LastOrDefault(b => b.IsGood)?.Header?.Sequence;
        if (_length != sealedLength || (_found.All(b => b.IsGood) && last != details.LastSequence))
        {
            var at = Math.Min(_length, sealedLength);
            AddBad(at, 0, $"the sealed shard holds {_length} bytes up to block {last?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "none"}; " +
                $"the manifest recorded {sealedLength} bytes up to block {details.LastSequence?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "none"}");
        }
    }

    private void AddBad(long offset, long length, string problem) =>
        _found.Add(new InspectedBlock(_path, _shardId, offset, length, null, [], null, problem));

    /// <summary>Reads and decodes the block at <paramref name="offset"/>; returns why it is bad, or null.</summary>
    private string? TryBlock(long offset, out BlockHeader? header, out IReadOnlyList<InspectedRecord> records, out UnitTag? unit)
    {
        records = [];
        unit = null;
        Span<byte> head = stackalloc byte[BlockHeader.MaxSize];
        var available = head[..RandomAccess.Read(_file, head[..(int)Math.Min(BlockHeader.MaxSize, _length - offset)], offset)];
        header = BlockHeader.TryRead(available, out var problem);
        if (header is not { } parsed)
        {
            return problem ?? "bad block header";
        }

        if (parsed.CollectionId != _collectionId || parsed.ShardId != _shardId)
        {
            return $"the block belongs to collection {parsed.CollectionId} shard {parsed.ShardId}";
        }

        if (parsed.BlockLength > _length - offset)
        {
            return "the block runs past the end of the file";
        }

        var block = new byte[parsed.BlockLength];
        if (RandomAccess.Read(_file, block, offset) != block.Length)
        {
            return "the file became shorter while it was read";
        }

        byte[] raw;
        try
        {
            raw = _codec.Decode(block, parsed, _salt, _path, offset);
        }
        catch (CorruptBlockException e)
        {
            return e.Reason;
        }

        return ReadRecords(raw, parsed, out records, out unit);
    }

    /// <summary>Parses the records of a decoded block; returns why they do not parse, or null.</summary>
    private string? ReadRecords(byte[] raw, in BlockHeader header, out IReadOnlyList<InspectedRecord> records, out UnitTag? unit)
    {
        records = [];
        var position = 0;
        unit = null;
        if ((header.Flags & BlockFlags.UnitPart) != 0)
        {
            unit = UnitTag.Read(raw);
            if (unit is null)
            {
                return "the block of a write across collections is too short to name its round";
            }

            position = UnitTag.Length;
        }

        var list = new List<InspectedRecord>();
        var count = 0L;
        while (position < raw.Length)
        {
            if (!RecordFormat.TryRead(raw, ref position, out RecordExtent record))
            {
                return $"record {count} does not parse";
            }

            count++;
            if (_keepRecords)
            {
                list.Add(new InspectedRecord(record.Kind, raw.AsMemory(record.KeyOffset, record.KeyLength),
                    raw.AsMemory(record.ValueOffset, record.ValueLength), record.ExpiresAt));
            }
        }

        if (count != header.RecordCount)
        {
            return $"the block holds {count} records; its header says {header.RecordCount}";
        }

        records = list;
        return null;
    }

    /// <summary>
    /// The offset of the first block at or after <paramref name="from"/> that passes its header and checksum and could
    /// follow <paramref name="lastSequence"/> in this shard; null when there is none.
    /// </summary>
    private long? FindNextBlock(long from, ulong lastSequence)
    {
        var window = new byte[SearchWindow];
        for (var start = from; _length - start >= BlockHeader.MinSize;)
        {
            var count = (int)Math.Min(SearchWindow, _length - start);
            count = RandomAccess.Read(_file, window.AsSpan(0, count), start);
            var last = count - (start + count == _length ? BlockHeader.MinSize : BlockHeader.MaxSize);
            for (var i = 0; i <= last; i++)
            {
                var head = window.AsSpan(i, Math.Min(BlockHeader.MaxSize, count - i));
                if (!BlockHeader.HasMagic(head) || BlockHeader.TryRead(head, out _) is not { } header
                    || header.CollectionId != _collectionId || header.ShardId != _shardId || header.Sequence <= lastSequence
                    || header.BlockLength > _length - (start + i))
                {
                    continue;
                }

                var block = new byte[header.BlockLength];
                if (RandomAccess.Read(_file, block, start + i) == block.Length && BlockHeader.HasValidBlockCrc(block))
                {
                    return start + i;
                }
            }

            start += last + 1;
        }

        return null;
    }
}
