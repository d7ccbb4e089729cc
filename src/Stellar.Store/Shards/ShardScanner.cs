using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

/// <summary>
/// Verifies the blocks of one collection's shard files at open (header, checksum, ids, sequence order; in a
/// format-2 shard, consecutive sequences from the first the manifest records), reading
/// them with positional reads through two fixed buffers, so memory at open does not grow with a shard and a shard
/// of any length can be opened.
/// </summary>
/// <remarks>
/// <para>
/// A bad block in the active shard is a torn tail (cut) only when no valid block follows it; otherwise it is
/// damage to committed data and open refuses. Looking for "a valid block after" means checksumming, from every
/// later header, the body it claims: a crafted file of headers that each claim the rest of the file made that
/// quadratic. So the probe first filters candidates cheaply (magic, header CRC, this collection and shard, a
/// sequence after the last good block's, a body that fits in the file), then checksums bodies under a budget of
/// <see cref="ProbeBudgetPerByte"/> times the bytes after the bad block. When the budget runs out, whether the bad
/// block is a tail cannot be told, and open refuses with <see cref="CorruptBlockException"/>: it never cuts data on
/// a guess. No honest file comes near the budget: a torn write leaves no valid-looking headers behind it, and after
/// damage the first candidate is the next real block.
/// </para>
/// <para>
/// The work is linear in the bytes on disk whatever they hold: each byte is checksummed once by the scan, each
/// header found by its magic number costs <see cref="BlockHeader.HeaderCrcLength"/> bytes (the magic cannot
/// overlap itself, so there is at most one per 4 bytes), and the probe's bodies are bounded by its budget.
/// </para>
/// <para>Thread safety: one instance per scan, used by one thread.</para>
/// </remarks>
internal sealed class ShardScanner
{
    /// <summary>The size of each read buffer: block bodies are checksummed, and the probe searches, this much at a time.</summary>
    public const int BufferSize = 256 * 1024;

    /// <summary>The bytes of claimed block bodies the probe may checksum, per byte after the bad block.</summary>
    public const int ProbeBudgetPerByte = 2;

    private readonly uint _collectionId;

    // Rented for the scan of one shard: block bodies are read through _buffer; _window is the probe's view of the
    // file, kept while candidate bodies are read through _buffer (only a damaged active shard needs it).
    private byte[] _buffer = [];
    private byte[]? _window;

    public ShardScanner(uint collectionId) => _collectionId = collectionId;

    /// <summary>Bytes fed to CRC32C so far (headers and blocks, the probe's included): the work of the scan.</summary>
    public long ChecksummedBytes { get; private set; }

    /// <summary>
    /// Verifies the blocks of one shard, adds them to <paramref name="blocks"/>, and returns where the valid blocks
    /// end: the file's length, or for the active shard the start of a torn tail. Throws
    /// <see cref="CorruptBlockException"/> for damage, and for a bad block whose kind cannot be told. Blocks start at
    /// <c>start</c> (after the shard header, or 0 for a format-1 shard). When <c>consecutive</c> is set (a format-2
    /// shard) blocks must carry consecutive sequences, the first one <c>firstSequence</c> when it is recorded, so a
    /// block missing from the start or the middle, or moved, is refused; a format-1 shard only promises increasing ones.
    /// </summary>
    public long Scan(IStorageFile file, string path, uint shardId, bool isActive, long start, ulong? firstSequence, bool consecutive,
        ref ulong lastSequence, List<ScannedBlock> blocks)
    {
        _buffer = ArrayPool<byte>.Shared.Rent(BufferSize);
        try
        {
            return ScanBlocks(file, path, shardId, isActive, start, firstSequence, consecutive, ref lastSequence, blocks);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = [];
            if (_window is not null)
            {
                ArrayPool<byte>.Shared.Return(_window);
                _window = null;
            }
        }
    }

    private long ScanBlocks(IStorageFile file, string path, uint shardId, bool isActive, long start, ulong? firstSequence, bool consecutive,
        ref ulong lastSequence, List<ScannedBlock> blocks)
    {
        var length = file.Length;
        var offset = start;
        var expected = firstSequence;
        while (offset < length)
        {
            var problem = CheckBlock(file, path, length, offset, out var header);
            if (problem is not null)
            {
                // Only the end of the active shard can be torn, and a torn tail has nothing valid after it.
                // Anything else is damage to committed data: refuse rather than drop it.
                if (!isActive || HasValidBlockAfter(file, path, length, offset, shardId, lastSequence, problem))
                {
                    throw new CorruptBlockException(path, offset, problem);
                }

                return offset;
            }

            // A whole, checksummed block in the wrong place is never a torn write: it is refused, not cut.
            if (header.CollectionId != _collectionId || header.ShardId != shardId)
            {
                throw new CorruptBlockException(path, offset, $"the block belongs to collection {header.CollectionId} shard {header.ShardId}");
            }

            if (header.Sequence <= lastSequence || (expected is { } next && header.Sequence != next))
            {
                throw new CorruptBlockException(path, offset, expected is { } e && header.Sequence != e
                    ? $"block sequence {header.Sequence} is not the expected {e}: a block is missing or out of place"
                    : $"block sequence {header.Sequence} does not follow {lastSequence}");
            }

            blocks.Add(new ScannedBlock(shardId, offset, header));
            lastSequence = header.Sequence;
            expected = consecutive ? header.Sequence + 1 : null;
            offset += header.BlockLength;
        }

        Debug.Assert(offset == length, "a block was accepted that runs past the end of the file");
        return offset;
    }

    /// <summary>Whether the bytes at <paramref name="offset"/> form a whole block: header, length and checksum.</summary>
    private string? CheckBlock(IStorageFile file, string path, long length, long offset, out BlockHeader header)
    {
        header = default;
        Span<byte> head = stackalloc byte[BlockHeader.MaxSize];
        var available = head[..(int)Math.Min(BlockHeader.MaxSize, length - offset)];
        ReadExactly(file, path, offset, available);
        var parsed = ParseHeader(available, out var problem);
        if (parsed is null)
        {
            return problem;
        }

        header = parsed.Value;
        if (header.BlockLength > length - offset)
        {
            return "the block runs past the end of the file";
        }

        if (!HasValidBlockCrc(file, path, offset, header, head))
        {
            return "block checksum mismatch";
        }

        return null;
    }

    /// <summary>
    /// Whether a block that would pass <see cref="CheckBlock"/> starts anywhere after <paramref name="bad"/>. Reads
    /// the rest of the file once through the window; throws when the budget for candidate bodies runs out.
    /// </summary>
    private bool HasValidBlockAfter(IStorageFile file, string path, long length, long bad, uint shardId, ulong lastSequence, string problem)
    {
        var window = _window ??= ArrayPool<byte>.Shared.Rent(BufferSize);
        var budget = ProbeBudgetPerByte * (length - bad);
        var start = bad + 1;
        while (length - start >= BlockHeader.MinSize)
        {
            var count = (int)Math.Min(BufferSize, length - start);
            ReadExactly(file, path, start, window.AsSpan(0, count));

            // Every header that starts in this window lies whole in it (the last window holds the file's end, where a
            // short block may start); the next window starts after the last one.
            var last = count - (start + count == length ? BlockHeader.MinSize : BlockHeader.MaxSize);
            for (var i = 0; i <= last; i++)
            {
                var head = window.AsSpan(i, Math.Min(BlockHeader.MaxSize, count - i));
                if (!BlockHeader.HasMagic(head))
                {
                    continue;
                }

                var at = start + i;
                if (ParseHeader(head, out _) is not { } header || header.CollectionId != _collectionId || header.ShardId != shardId
                    || header.Sequence <= lastSequence || header.BlockLength > length - at)
                {
                    continue;
                }

                if (header.BlockLength > budget)
                {
                    throw new CorruptBlockException(path, bad, $"{problem}, and whether this is a torn tail or damage cannot be told: " +
                        $"the blocks claimed after it would take more than {ProbeBudgetPerByte} times the {length - bad} bytes after it to check, so nothing was cut");
                }

                budget -= header.BlockLength;
                if (HasValidBlockCrc(file, path, at, header, head))
                {
                    return true;
                }
            }

            start += last + 1;
        }

        return false;
    }

    /// <summary><see cref="BlockHeader.TryRead"/>, counting the header CRC it computes once the magic matches.</summary>
    private BlockHeader? ParseHeader(ReadOnlySpan<byte> head, out string? problem)
    {
        if (BlockHeader.HasMagic(head))
        {
            ChecksummedBytes += BlockHeader.HeaderCrcLength;
        }

        return BlockHeader.TryRead(head, out problem);
    }

    /// <summary>Checksums the block at <paramref name="offset"/> a buffer at a time; its header is <paramref name="head"/>.</summary>
    private bool HasValidBlockCrc(IStorageFile file, string path, long offset, in BlockHeader header, ReadOnlySpan<byte> head)
    {
        var crc = BlockHeader.BlockCrcOfHeader(head);
        var end = offset + header.BlockLength;
        for (var at = offset + header.HeaderLength; at < end;)
        {
            var chunk = _buffer.AsSpan(0, (int)Math.Min(BufferSize, end - at));
            ReadExactly(file, path, at, chunk);
            crc = Crc32C.Append(crc, chunk);
            at += chunk.Length;
        }

        ChecksummedBytes += header.BlockLength;
        return crc == BlockHeader.StoredBlockCrc(head);
    }

    /// <summary>Fills <paramref name="buffer"/> from <paramref name="offset"/>, which lies within the length the scan started with.</summary>
    private static void ReadExactly(IStorageFile file, string path, long offset, Span<byte> buffer)
    {
        if (file.ReadAt(offset, buffer) != buffer.Length)
        {
            throw new CorruptBlockException(path, offset, "the file became shorter while it was verified");
        }
    }
}
