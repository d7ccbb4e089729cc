namespace Stellar.Store.Storage;

/// <summary>
/// Wraps any <see cref="IStorage"/> and makes chosen operations fail with <see cref="IOException"/>, to prove that
/// a failed write never reports success and that what was written before it stays intact.
/// </summary>
/// <remarks>
/// <para>Knobs are 1-based call numbers counted from construction over every file of this storage, or
/// <see langword="null"/> for never; each fires once, at that call, and later calls pass through (the engine is
/// expected to stop at the first failure; <see cref="DiskCapacity"/> models a failure that persists). To fail
/// "at step k for every k", run a scenario once without faults, read <see cref="OperationCount"/> (or a
/// per-kind count), then run it again on a fresh instance for each k with <see cref="FailOperationAt"/> = k.</para>
/// <para>The counted mutating operations are <see cref="IStorageFile.Append"/>, <see cref="IStorageFile.FlushToDisk"/>,
/// <see cref="IStorageFile.Truncate"/>, <see cref="ReplaceAtomically"/>, <see cref="Rename"/> and <see cref="Delete"/>.
/// A call counts when it is made, whether it then fails or not. An injected failure happens before the inner
/// storage is touched, except for the torn prefix of an append; a failed flush leaves the inner file unflushed.</para>
/// <para>Like <see cref="FileStorageFile"/>, a file whose flush failed fails every later flush.</para>
/// <para>Thread safety: every member may be called from any thread; counters and knobs are read and updated under
/// one lock. Set knobs before the operations they target.</para>
/// </remarks>
internal sealed class FaultInjectingStorage : IStorage
{
    private readonly object _gate = new();
    private int? _failAppendAt;
    private int _tornAppendLength;
    private int? _failFlushAt;
    private long? _diskCapacity;
    private int? _failReplaceAt;
    private int? _failRenameAt;
    private int? _failOperationAt;
    private int _appendCount;
    private int _flushCount;
    private int _replaceCount;
    private int _renameCount;
    private int _operationCount;
    private int _faultCount;
    private long _bytesWritten;

    /// <summary>Wraps <paramref name="inner"/>, injecting no fault until a knob is set.</summary>
    public FaultInjectingStorage(IStorage inner)
    {
        ArgumentNullException.ThrowIfNull(inner);
        Inner = inner;
    }

    /// <summary>The wrapped storage, to inspect what a failure left behind.</summary>
    public IStorage Inner { get; }

    /// <inheritdoc />
    public string Location => Inner.Location;

    /// <summary>The Nth <see cref="IStorageFile.Append"/> throws, after writing <see cref="TornAppendLength"/> bytes of its data.</summary>
    public int? FailAppendAt { get => Read(ref _failAppendAt); set => Write(ref _failAppendAt, value); }

    /// <summary>
    /// How many leading bytes of an append that a fault hits (by <see cref="FailAppendAt"/> or
    /// <see cref="FailOperationAt"/>) reach the inner file before it throws: a torn write. 0 (the default) writes
    /// nothing; a value past the data's length writes it all and still throws (the write happened, its report failed).
    /// </summary>
    public int TornAppendLength { get => Read(ref _tornAppendLength); set => Write(ref _tornAppendLength, value); }

    /// <summary>The Nth <see cref="IStorageFile.FlushToDisk"/> throws without flushing; that file's later flushes throw too.</summary>
    public int? FailFlushAt { get => Read(ref _failFlushAt); set => Write(ref _failFlushAt, value); }

    /// <summary>
    /// The bytes the device holds, counted over every append and every <see cref="ReplaceAtomically"/>'s content
    /// since construction (truncating and deleting free nothing). The append that crosses it writes the bytes that
    /// fit and throws a disk-full <see cref="IOException"/> (see <see cref="StorageErrors.IsDiskFull"/>), as does
    /// every append after it; a replace that does not fit throws and leaves the target as it was.
    /// </summary>
    public long? DiskCapacity { get => Read(ref _diskCapacity); set => Write(ref _diskCapacity, value); }

    /// <summary>The Nth <see cref="ReplaceAtomically"/> throws and leaves the target as it was.</summary>
    public int? FailReplaceAt { get => Read(ref _failReplaceAt); set => Write(ref _failReplaceAt, value); }

    /// <summary>The Nth <see cref="Rename"/> throws and renames nothing.</summary>
    public int? FailRenameAt { get => Read(ref _failRenameAt); set => Write(ref _failRenameAt, value); }

    /// <summary>The Nth counted mutating operation of any kind throws (an append tears as <see cref="TornAppendLength"/> says).</summary>
    public int? FailOperationAt { get => Read(ref _failOperationAt); set => Write(ref _failOperationAt, value); }

    /// <summary>Appends made so far.</summary>
    public int AppendCount => Read(ref _appendCount);

    /// <summary>Flushes made so far.</summary>
    public int FlushCount => Read(ref _flushCount);

    /// <summary>Replaces made so far.</summary>
    public int ReplaceCount => Read(ref _replaceCount);

    /// <summary>Renames made so far.</summary>
    public int RenameCount => Read(ref _renameCount);

    /// <summary>Counted mutating operations of every kind made so far.</summary>
    public int OperationCount => Read(ref _operationCount);

    /// <summary>Faults injected so far, disk-full failures included.</summary>
    public int FaultCount => Read(ref _faultCount);

    /// <summary>Bytes that reached the inner storage through appends (torn prefixes included) and replaces.</summary>
    public long BytesWritten => Read(ref _bytesWritten);

    /// <inheritdoc />
    public IStorageFile Open(string name) => new FaultInjectingStorageFile(this, Inner.Open(name));

    /// <inheritdoc />
    public IStorageFile OpenRead(string name) => new FaultInjectingStorageFile(this, Inner.OpenRead(name));

    /// <inheritdoc />
    public bool Exists(string name) => Inner.Exists(name);

    /// <inheritdoc />
    public IReadOnlyList<string> List() => Inner.List();

    /// <inheritdoc />
    public void Delete(string name)
    {
        ThrowIfFaulted(NextOperationFault($"Delete of '{name}'"));
        Inner.Delete(name);
    }

    /// <inheritdoc />
    public byte[] ReadAllBytes(string name) => Inner.ReadAllBytes(name);

    /// <inheritdoc />
    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content)
    {
        IOException? fault;
        lock (_gate)
        {
            _replaceCount++;
            _operationCount++;
            if (_failReplaceAt == _replaceCount || _failOperationAt == _operationCount)
            {
                fault = Injected($"ReplaceAtomically #{_replaceCount} of '{name}' (operation #{_operationCount})");
            }
            else if (content.Length > RemainingSpace())
            {
                fault = StorageErrors.DiskFull(name);
                _faultCount++;
            }
            else
            {
                fault = null;
                _bytesWritten += content.Length;
            }
        }

        ThrowIfFaulted(fault);
        Inner.ReplaceAtomically(name, content);
    }

    /// <inheritdoc />
    public void Rename(string from, string to)
    {
        IOException? fault = null;
        lock (_gate)
        {
            _renameCount++;
            _operationCount++;
            if (_failRenameAt == _renameCount || _failOperationAt == _operationCount)
            {
                fault = Injected($"Rename #{_renameCount} of '{from}' to '{to}' (operation #{_operationCount})");
            }
        }

        ThrowIfFaulted(fault);
        Inner.Rename(from, to);
    }

    /// <inheritdoc />
    public IDisposable AcquireLock() => Inner.AcquireLock();

    /// <summary>Counts an append of <paramref name="length"/> bytes and decides how many of them reach the file.</summary>
    internal IOException? NextAppendFault(string name, int length, out int written)
    {
        lock (_gate)
        {
            _appendCount++;
            _operationCount++;
            long remaining = RemainingSpace();
            IOException? fault = null;
            written = length;
            if (_failAppendAt == _appendCount || _failOperationAt == _operationCount)
            {
                written = (int)Math.Min(Math.Min(Math.Max(_tornAppendLength, 0), length), remaining);
                fault = Injected($"Append #{_appendCount} to '{name}' (operation #{_operationCount}) after {written} of {length} bytes");
            }
            else if (length > remaining)
            {
                written = (int)remaining;
                fault = StorageErrors.DiskFull(name);
                _faultCount++;
            }

            _bytesWritten += written;
            return fault;
        }
    }

    /// <summary>Counts a flush and says whether it fails.</summary>
    internal IOException? NextFlushFault(string name)
    {
        lock (_gate)
        {
            _flushCount++;
            _operationCount++;
            return _failFlushAt == _flushCount || _failOperationAt == _operationCount
                ? Injected($"FlushToDisk #{_flushCount} of '{name}' (operation #{_operationCount})")
                : null;
        }
    }

    /// <summary>Counts a mutating operation with no knob of its own (truncate, delete) and says whether it fails.</summary>
    internal IOException? NextOperationFault(string what)
    {
        lock (_gate)
        {
            _operationCount++;
            return _failOperationAt == _operationCount ? Injected($"{what} (operation #{_operationCount})") : null;
        }
    }

    private static void ThrowIfFaulted(IOException? fault)
    {
        if (fault is not null)
        {
            throw fault;
        }
    }

    private IOException Injected(string what)
    {
        _faultCount++;
        return new IOException($"Injected fault: {what} failed.");
    }

    private long RemainingSpace() => _diskCapacity is { } capacity ? Math.Max(capacity - _bytesWritten, 0) : long.MaxValue;

    private T Read<T>(ref T field)
    {
        lock (_gate)
        {
            return field;
        }
    }

    private void Write<T>(ref T field, T value)
    {
        lock (_gate)
        {
            field = value;
        }
    }
}
