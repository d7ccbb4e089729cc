using Stellar.Store.Storage;

namespace Stellar.Store.Testing;

/// <summary>
/// A handle on one file of a <see cref="MemoryStorage"/>. Handles on the same file share its content, as file
/// handles share the page cache.
/// </summary>
/// <remarks>
/// Follows <see cref="FileStorageFile"/>: the first flush or truncate through a handle also makes the directory
/// durable, and a read-only handle refuses to append, flush or truncate with <see cref="NotSupportedException"/>.
/// After <see cref="MemoryStorage.SimulateCrash"/> every member throws <see cref="IOException"/>.
/// </remarks>
internal sealed class MemoryStorageFile : IStorageFile
{
    private readonly MemoryStorage _storage;
    private readonly MemoryFileData _data;
    private readonly int _generation;
    private readonly bool _writable;
    private bool _directoryFlushed;
    private volatile bool _disposed;

    /// <summary>Creates a handle on <paramref name="data"/>, opened in the storage's <paramref name="generation"/>.</summary>
    public MemoryStorageFile(MemoryStorage storage, MemoryFileData data, string name, bool writable, int generation)
    {
        _storage = storage;
        _data = data;
        _writable = writable;
        _generation = generation;
        Name = name;
    }

    /// <inheritdoc />
    public string Name { get; }

    /// <inheritdoc />
    public long Length
    {
        get
        {
            ThrowIfUnusable();
            return _data.Length;
        }
    }

    /// <inheritdoc />
    public void Append(ReadOnlySpan<byte> data)
    {
        ThrowIfNotWritable();
        _data.Append(data, Name);
    }

    /// <inheritdoc />
    public int ReadAt(long offset, Span<byte> buffer)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ThrowIfUnusable();
        return _data.ReadAt(offset, buffer, Name);
    }

    /// <inheritdoc />
    public void FlushToDisk()
    {
        ThrowIfNotWritable();
        _data.Flush(Name);
        FlushDirectoryOnce();
    }

    /// <inheritdoc />
    public void Truncate(long length)
    {
        ThrowIfNotWritable();
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        _data.Truncate(length, Name);
        FlushDirectoryOnce();
    }

    /// <inheritdoc />
    public void Dispose() => _disposed = true;

    private void FlushDirectoryOnce()
    {
        if (!_directoryFlushed)
        {
            _storage.FlushDirectory(_generation, Name);
            _directoryFlushed = true;
        }
    }

    private void ThrowIfNotWritable()
    {
        ThrowIfUnusable();
        if (!_writable)
        {
            throw new NotSupportedException($"'{Name}' was opened for reading only.");
        }
    }

    private void ThrowIfUnusable()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        _storage.ThrowIfCrashedSince(_generation, Name);
    }
}
