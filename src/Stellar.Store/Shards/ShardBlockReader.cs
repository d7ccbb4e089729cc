using System.Buffers;
using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

/// <summary>
/// Reads one shard's blocks in file order through one large buffer, so that a run of small blocks costs one read
/// per buffer, not one per block: the change feed's sequential reader. Only bytes below the limit the caller gives
/// (the committed end, or a sealed shard's length) are read; every block there was written whole before, so a block
/// that does not parse, or runs past the limit, is damage (<see cref="CorruptBlockException"/>), never a tail.
/// </summary>
/// <remarks>Thread safety: one instance per reader, used by one thread at a time.</remarks>
internal sealed class ShardBlockReader : IDisposable
{
    /// <summary>The bytes read from the file at a time (more when one block is larger).</summary>
    public const int BufferSize = 1 << 20;

    private readonly IStorageFile _file;
    private byte[] _buffer = ArrayPool<byte>.Shared.Rent(BufferSize);

    /// <summary>The file offset of <c>_buffer[0]</c>, and how many bytes from it the buffer holds.</summary>
    private long _bufferStart;
    private int _buffered;

    /// <param name="shardId">The shard read.</param>
    /// <param name="file">Its file, owned (disposed) by this reader.</param>
    /// <param name="path">Its path, for errors.</param>
    /// <param name="start">Where its blocks start.</param>
    public ShardBlockReader(uint shardId, IStorageFile file, string path, long start)
    {
        ShardId = shardId;
        _file = file;
        Path = path;
        Offset = start;
        _bufferStart = start;
    }

    /// <summary>The shard read.</summary>
    public uint ShardId { get; }

    /// <summary>The shard's path, for errors.</summary>
    public string Path { get; }

    /// <summary>Where the next block starts.</summary>
    public long Offset { get; private set; }

    /// <summary>
    /// Reads the block at <see cref="Offset"/> when it starts below <paramref name="limit"/>, and moves past it: its
    /// header, its offset, and its bytes (valid until the next call). False at the limit.
    /// </summary>
    public bool TryNext(long limit, out BlockHeader header, out long offset, out ReadOnlySpan<byte> block)
    {
        header = default;
        block = default;
        offset = Offset;
        if (Offset >= limit)
        {
            return false;
        }

        var head = Window(Math.Min(BlockHeader.MaxSize, limit - Offset));
        header = BlockHeader.TryRead(head, out var problem) ?? throw new CorruptBlockException(Path, Offset, problem ?? "bad block header");
        if (header.BlockLength > limit - Offset)
        {
            throw new CorruptBlockException(Path, Offset, "the block runs past the committed end of its shard");
        }

        block = Window(header.BlockLength);
        Offset += header.BlockLength;
        return true;
    }

    /// <summary>The file's length now (what the OS holds; in Buffered mode it may trail the committed end).</summary>
    public long FileLength => _file.Length;

    /// <summary>Goes back to <paramref name="offset"/>, where a block read before starts, to read it again.</summary>
    public void Rewind(long offset) => Offset = offset;

    public void Dispose()
    {
        _file.Dispose();
        if (_buffer.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = [];
        }
    }

    /// <summary><paramref name="length"/> bytes from <see cref="Offset"/>, read into the buffer when it does not hold them.</summary>
    private ReadOnlySpan<byte> Window(long length)
    {
        var needed = (int)length;
        var at = Offset - _bufferStart;
        if (at < 0 || at + needed > _buffered)
        {
            if (needed > _buffer.Length)
            {
                ArrayPool<byte>.Shared.Return(_buffer);
                _buffer = ArrayPool<byte>.Shared.Rent(needed);
            }

            _bufferStart = Offset;
            _buffered = _file.ReadAt(Offset, _buffer);
            at = 0;
            if (_buffered < needed)
            {
                throw new CorruptBlockException(Path, Offset, "the shard is shorter than its committed blocks");
            }
        }

        return _buffer.AsSpan((int)at, needed);
    }
}
