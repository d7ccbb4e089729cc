using Microsoft.Win32.SafeHandles;

namespace Stellar.Store.Storage;

/// <summary>
/// An <see cref="IStorageFile"/> over one operating-system file handle, written and read with positional I/O
/// (<see cref="RandomAccess"/>): no user-space buffer, no shared file position, so readers on other threads never
/// disturb the writer.
/// </summary>
/// <remarks>
/// <para>The file tracks its own length: <see cref="Append"/> writes at <see cref="Length"/> and publishes the new
/// length only after the operating system took every byte, so a concurrent <see cref="ReadAt"/> never sees past
/// what was appended. When an append fails, part of it may have reached the file (a torn write): <see cref="Length"/>
/// then counts that prefix, as the file on disk does, so every implementation agrees on what a failed append
/// leaves; an owner that goes on writing must first <see cref="Truncate"/> back to the length it had before.</para>
/// <para>The first <see cref="FlushToDisk"/> or <see cref="Truncate"/> through a handle also fsyncs the directory,
/// because a file's data is not durable while its directory entry is not (a new shard could vanish whole).</para>
/// <para>Once an fsync has failed, every later <see cref="FlushToDisk"/> fails too: Linux may drop the pages that
/// failed to write and report the next fsync as a success, so success after a failure would be a lie.</para>
/// <para>A read-only file (<see cref="IStorage.OpenRead"/>) refuses to append, flush or truncate with
/// <see cref="NotSupportedException"/>; its <see cref="Length"/> and <see cref="ReadAt"/> go to the file's end on
/// disk, so it sees what another handle appends after it was opened.</para>
/// </remarks>
internal sealed class FileStorageFile : IStorageFile
{
    private readonly FileStream _file;
    private readonly SafeFileHandle _handle;
    private readonly string _directory;
    private readonly bool _writable;
    private long _length;
    private bool _directoryFlushed;
    private bool _flushFailed;

    /// <summary>The background fsync <see cref="StartWriteback"/> started, until the owner next waits for it.</summary>
    private Task? _writeback;

    /// <summary>Whether the background fsync runs on a thread of its own rather than the pool's.</summary>
    private bool _writebackOffThePool;

    private FileStorageFile(FileStream file, string directory, string name, bool writable)
    {
        _file = file;
        _handle = file.SafeFileHandle;
        _directory = directory;
        _writable = writable;
        Name = name;
        _length = writable ? RandomAccess.GetLength(_handle) : 0;
    }

    /// <inheritdoc />
    public string Name { get; }

    /// <inheritdoc />
    /// <remarks>For a read-only file, the length on disk now (one <c>fstat</c>), since another handle may append.</remarks>
    public long Length => _writable ? Interlocked.Read(ref _length) : RandomAccess.GetLength(_handle);

    /// <summary>Opens or creates <paramref name="name"/> in <paramref name="directory"/> for appending and reading.</summary>
    public static FileStorageFile OpenWritable(string directory, string name, bool writebackOffThePool = false)
    {
        var file = Open(directory, name, FileMode.OpenOrCreate, FileAccess.ReadWrite, writable: true);
        file._writebackOffThePool = writebackOffThePool;
        return file;
    }

    /// <summary>Opens the existing <paramref name="name"/> in <paramref name="directory"/> for reading only.</summary>
    public static FileStorageFile OpenReadOnly(string directory, string name) =>
        Open(directory, name, FileMode.Open, FileAccess.Read, writable: false);

    /// <inheritdoc />
    public void Append(ReadOnlySpan<byte> data)
    {
        ThrowIfNotWritable();
        long offset = _length;
        try
        {
            RandomAccess.Write(_handle, data, offset);
        }
        catch (IOException)
        {
            CountTornPrefix(offset);
            throw;
        }

        Interlocked.Exchange(ref _length, offset + data.Length);
    }

    /// <inheritdoc />
    public int ReadAt(long offset, Span<byte> buffer)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ObjectDisposedException.ThrowIf(_handle.IsClosed, this);

        // The writer's own handle stops at the published length: bytes past it may be a torn failed append.
        if (_writable)
        {
            long available = Length - offset;
            if (available <= 0)
            {
                return 0;
            }

            buffer = buffer[..(int)Math.Min(buffer.Length, available)];
        }

        // One pread may return less than asked (a signal, a huge request); only the end of the file stops us.
        int total = 0;
        while (total < buffer.Length)
        {
            int read = RandomAccess.Read(_handle, buffer[total..], offset + total);
            if (read == 0)
            {
                break;
            }

            total += read;
        }

        return total;
    }

    /// <inheritdoc />
    public void FlushToDisk()
    {
        ThrowIfNotWritable();
        WaitForWriteback();
        if (_flushFailed)
        {
            throw new IOException($"An earlier flush of '{Name}' failed, so what is on disk is unknown; the file must not be trusted.");
        }

        try
        {
            RandomAccess.FlushToDisk(_handle);
            if (!_directoryFlushed)
            {
                DirectorySync.Flush(_directory);
                _directoryFlushed = true;
            }
        }
        catch (IOException)
        {
            _flushFailed = true;
            throw;
        }
    }

    /// <inheritdoc />
    /// <remarks>One background fsync at a time; a hint given while one runs is dropped, the next one covers it.</remarks>
    public void StartWriteback()
    {
        ThrowIfNotWritable();
        if (_flushFailed || _writeback is { IsCompleted: false })
        {
            return;
        }

        WaitForWriteback();
        var handle = _handle;

        // Off the pool when asked: the next flush waits for it, and a game whose pool threads all wait for that flush
        // (with the writers on threads of their own) would leave it queued for ever. Else on the pool, whose thread
        // costs a few microseconds where a thread's start costs about two hundred.
        _writeback = _writebackOffThePool
            ? Task.Factory.StartNew(() => RandomAccess.FlushToDisk(handle), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)
            : Task.Run(() => RandomAccess.FlushToDisk(handle));
    }

    /// <inheritdoc />
    public void Truncate(long length)
    {
        ThrowIfNotWritable();
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, Length);

        // Readers must stop at the new end before the bytes behind it disappear.
        Interlocked.Exchange(ref _length, length);
        RandomAccess.SetLength(_handle, length);
        FlushToDisk();
    }

    /// <inheritdoc />
    public void Dispose()
    {
        // The background fsync holds the handle: let it finish first. Its failure needs no report here, since
        // a closed file is never flushed again.
        WaitForWriteback();
        _file.Dispose();
    }

    /// <summary>Waits for the background fsync, if any; its failure fails every later flush, as a failed flush does.</summary>
    private void WaitForWriteback()
    {
        var writeback = _writeback;
        if (writeback is null)
        {
            return;
        }

        _writeback = null;
        try
        {
            writeback.GetAwaiter().GetResult();
        }
        catch (IOException)
        {
            _flushFailed = true;
        }
    }

    private static FileStorageFile Open(string directory, string name, FileMode mode, FileAccess access, bool writable)
    {
        // Other handles may read, and a sealed shard may be deleted or renamed while a reader still holds it
        // (Windows refuses both unless every handle shares Delete). A file created here is private to its owner.
        var file = PrivateFiles.Open(Path.Combine(directory, name), mode, access, FileShare.ReadWrite | FileShare.Delete);
        try
        {
            return new FileStorageFile(file, directory, name, writable);
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    private void CountTornPrefix(long offset)
    {
        try
        {
            Interlocked.Exchange(ref _length, Math.Max(offset, RandomAccess.GetLength(_handle)));
        }
        catch (IOException)
        {
            // The append's own failure is the one to report; without the size, the length stays where it was.
        }
    }

    private void ThrowIfNotWritable()
    {
        ObjectDisposedException.ThrowIf(_handle.IsClosed, this);
        if (!_writable)
        {
            throw new NotSupportedException($"'{Name}' was opened for reading only.");
        }
    }
}
