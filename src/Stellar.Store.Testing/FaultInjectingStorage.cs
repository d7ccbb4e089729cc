using Stellar.Store.Storage;

namespace Stellar.Store.Testing;

/// <summary>
/// Wraps a <see cref="MemoryStorage"/> or a store directory and makes chosen operations fail with
/// <see cref="IOException"/>, to prove that a failed write never reports success and that what was written before it
/// stays intact. Open a store on it with <see cref="OpenStoreAsync"/>.
/// </summary>
/// <remarks>
/// <para>Knobs are 1-based call numbers counted from construction over every file of this storage, or
/// <see langword="null"/> for never; each fires once, at that call, and later calls pass through (the engine is
/// expected to stop at the first failure; <see cref="DiskCapacity"/> models a failure that persists). To fail
/// "at step k for every k", run a scenario once without faults, read <see cref="OperationCount"/> (or a
/// per-kind count), then run it again on a fresh instance for each k with <see cref="FailOperationAt"/> = k.</para>
/// <para>The counted mutating operations are <see cref="IStorageFile.Append"/>, <see cref="IStorageFile.FlushToDisk"/>,
/// <see cref="IStorageFile.Truncate"/>, <see cref="ReplaceAtomically"/>, <see cref="Rename"/>, <see cref="Delete"/>
/// and an <see cref="Open"/> that creates a file. A call counts when it is made, whether it then fails or not.</para>
/// <para><see cref="Timing"/> says when every injected fault fires, whichever knob chose the call. With
/// <see cref="FaultTiming.BeforeEffect"/> (the default) the inner storage is not touched, except for the torn
/// prefix of an append, and a failed flush leaves the inner file unflushed. With <see cref="FaultTiming.AfterEffect"/>
/// the whole operation reaches the inner storage first (every byte appended, the flush done, the file replaced,
/// renamed, deleted, truncated or created), then the call throws: an outcome the caller cannot know.</para>
/// <para>Like <see cref="FileStorageFile"/>, a file whose flush failed fails every later flush.</para>
/// <para>Thread safety: every member may be called from any thread; counters and knobs are read and updated under
/// one lock. Set knobs before the operations they target.</para>
/// </remarks>
public sealed class FaultInjectingStorage : IStorage
{
    private readonly object _gate = new();
    private int? _failAppendAt;
    private int _tornAppendLength;
    private int? _failFlushAt;
    private long? _diskCapacity;
    private int? _failReplaceAt;
    private int? _failRenameAt;
    private int? _failOperationAt;
    private int? _failDeleteAt;
    private int? _failTruncateAt;
    private int? _failCreateAt;
    private FaultTiming _timing;
    private int _appendCount;
    private int _flushCount;
    private int _replaceCount;
    private int _renameCount;
    private int _deleteCount;
    private int _truncateCount;
    private int _createCount;
    private int _faultsBeforeEffect;
    private int _faultsAfterEffect;
    private int _operationCount;
    private int _faultCount;
    private long _bytesWritten;

    /// <summary>Wraps <paramref name="inner"/>, injecting no fault until a knob is set.</summary>
    /// <remarks>Inspect what a failure left behind through <paramref name="inner"/> itself.</remarks>
    public FaultInjectingStorage(MemoryStorage inner)
        : this((IStorage)inner)
    {
    }

    /// <summary>
    /// Wraps the store directory <paramref name="directory"/> (real files, real fsync), injecting no fault until a
    /// knob is set. The directory is created when it does not exist.
    /// </summary>
    public FaultInjectingStorage(string directory)
        : this(new FileStorage(System.IO.Path.GetFullPath(directory)))
    {
    }

    /// <summary>Wraps any storage, such as another test's own wrapper, injecting no fault until a knob is set.</summary>
    internal FaultInjectingStorage(IStorage inner)
    {
        ArgumentNullException.ThrowIfNull(inner);
        Inner = inner;
    }

    /// <summary>The wrapped storage, to inspect what a failure left behind.</summary>
    internal IStorage Inner { get; }

    /// <inheritdoc />
    public string Location => Inner.Location;

    /// <summary>When every injected fault fires: before the operation's effect (the default) or after it.</summary>
    public FaultTiming Timing { get => Read(ref _timing); set => Write(ref _timing, value); }

    /// <summary>
    /// The Nth <see cref="IStorageFile.Append"/> throws, after writing <see cref="TornAppendLength"/> bytes of its
    /// data (all of them when <see cref="Timing"/> is <see cref="FaultTiming.AfterEffect"/>).
    /// </summary>
    public int? FailAppendAt { get => Read(ref _failAppendAt); set => Write(ref _failAppendAt, value); }

    /// <summary>
    /// How many leading bytes of an append that a fault hits (by <see cref="FailAppendAt"/> or
    /// <see cref="FailOperationAt"/>) reach the inner file before it throws: a torn write. 0 (the default) writes
    /// nothing; a value past the data's length writes it all and still throws (the write happened, its report failed).
    /// </summary>
    public int TornAppendLength { get => Read(ref _tornAppendLength); set => Write(ref _tornAppendLength, value); }

    /// <summary>
    /// The Nth <see cref="IStorageFile.FlushToDisk"/> throws, without flushing (or after flushing, per
    /// <see cref="Timing"/>); that file's later flushes throw too.
    /// </summary>
    public int? FailFlushAt { get => Read(ref _failFlushAt); set => Write(ref _failFlushAt, value); }

    /// <summary>
    /// The bytes the device holds, counted over every append and every <see cref="ReplaceAtomically"/>'s content
    /// since construction (truncating and deleting free nothing). The append that crosses it writes the bytes that
    /// fit and throws a disk-full <see cref="IOException"/> (see <see cref="StorageErrors.IsDiskFull"/>), as does
    /// every append after it; a replace that does not fit throws and leaves the target as it was.
    /// </summary>
    public long? DiskCapacity { get => Read(ref _diskCapacity); set => Write(ref _diskCapacity, value); }

    /// <summary>
    /// The Nth <see cref="ReplaceAtomically"/> throws and leaves the target as it was, or (per <see cref="Timing"/>)
    /// throws after replacing it, as a directory fsync that fails after the rename does.
    /// </summary>
    public int? FailReplaceAt { get => Read(ref _failReplaceAt); set => Write(ref _failReplaceAt, value); }

    /// <summary>The Nth <see cref="Rename"/> throws and renames nothing, or (per <see cref="Timing"/>) throws after renaming.</summary>
    public int? FailRenameAt { get => Read(ref _failRenameAt); set => Write(ref _failRenameAt, value); }

    /// <summary>The Nth <see cref="Delete"/> throws, before or after deleting per <see cref="Timing"/>.</summary>
    public int? FailDeleteAt { get => Read(ref _failDeleteAt); set => Write(ref _failDeleteAt, value); }

    /// <summary>The Nth <see cref="IStorageFile.Truncate"/> throws, before or after truncating per <see cref="Timing"/>.</summary>
    public int? FailTruncateAt { get => Read(ref _failTruncateAt); set => Write(ref _failTruncateAt, value); }

    /// <summary>
    /// The Nth <see cref="Open"/> that creates a file throws, before creating it or (per <see cref="Timing"/>)
    /// after creating it empty. Opening an existing file is not counted.
    /// </summary>
    public int? FailCreateAt { get => Read(ref _failCreateAt); set => Write(ref _failCreateAt, value); }

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

    /// <summary>Deletes made so far.</summary>
    public int DeleteCount => Read(ref _deleteCount);

    /// <summary>Truncates made so far.</summary>
    public int TruncateCount => Read(ref _truncateCount);

    /// <summary>Opens that created a file, made so far.</summary>
    public int CreateCount => Read(ref _createCount);

    /// <summary>Counted mutating operations of every kind made so far.</summary>
    public int OperationCount => Read(ref _operationCount);

    /// <summary>Faults injected so far, disk-full failures included.</summary>
    public int FaultCount => Read(ref _faultCount);

    /// <summary>Faults injected by a knob with <see cref="FaultTiming.BeforeEffect"/> so far.</summary>
    public int FaultsBeforeEffect => Read(ref _faultsBeforeEffect);

    /// <summary>Faults injected by a knob with <see cref="FaultTiming.AfterEffect"/> so far.</summary>
    public int FaultsAfterEffect => Read(ref _faultsAfterEffect);

    /// <summary>Bytes that reached the inner storage through appends (torn prefixes included) and replaces.</summary>
    public long BytesWritten => Read(ref _bytesWritten);

    /// <summary>
    /// Opens the store kept in the wrapped storage, creating it when there is none, so that every operation of the
    /// store passes through this wrapper's knobs. The store does not dispose this storage.
    /// </summary>
    public Task<StellarStore> OpenStoreAsync(StoreOptions? options = null, CancellationToken cancellationToken = default) =>
        StellarStore.OpenAsync(this, options, cancellationToken);

    /// <inheritdoc />
    IStorageFile IStorage.Open(string name) => Open(name);

    /// <inheritdoc />
    IStorageFile IStorage.OpenRead(string name) => OpenRead(name);

    /// <summary>Opens the named file for appending and reading, creating it (a counted operation) when it does not exist.</summary>
    internal IStorageFile Open(string name)
    {
        if (Inner.Exists(name))
        {
            return new FaultInjectingStorageFile(this, Inner.Open(name));
        }

        IOException? fault = null;
        bool after;
        lock (_gate)
        {
            _createCount++;
            _operationCount++;
            after = _timing == FaultTiming.AfterEffect;
            if (_failCreateAt == _createCount || _failOperationAt == _operationCount)
            {
                fault = Injected($"Open #{_createCount} creating '{name}' (operation #{_operationCount})");
            }
        }

        if (fault is not null && !after)
        {
            throw fault;
        }

        var file = Inner.Open(name);
        if (fault is not null)
        {
            file.Dispose();
            throw fault;
        }

        return new FaultInjectingStorageFile(this, file);
    }

    /// <summary>Opens an existing file for reading only; reads never fail by injection.</summary>
    internal IStorageFile OpenRead(string name) => new FaultInjectingStorageFile(this, Inner.OpenRead(name));

    /// <inheritdoc />
    public bool Exists(string name) => Inner.Exists(name);

    /// <inheritdoc />
    public IReadOnlyList<string> List() => Inner.List();

    /// <inheritdoc />
    public void Delete(string name)
    {
        var fault = NextFault(ref _deleteCount, ref _failDeleteAt, $"Delete of '{name}'", out var after);
        Apply(fault, after, () => Inner.Delete(name));
    }

    /// <inheritdoc />
    public byte[] ReadAllBytes(string name) => Inner.ReadAllBytes(name);

    /// <inheritdoc />
    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content)
    {
        IOException? fault;
        var after = false;
        lock (_gate)
        {
            _replaceCount++;
            _operationCount++;
            if (_failReplaceAt == _replaceCount || _failOperationAt == _operationCount)
            {
                fault = Injected($"ReplaceAtomically #{_replaceCount} of '{name}' (operation #{_operationCount})");
                after = _timing == FaultTiming.AfterEffect;
                if (after)
                {
                    _bytesWritten += content.Length;
                }
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

        if (fault is not null && !after)
        {
            throw fault;
        }

        Inner.ReplaceAtomically(name, content);
        ThrowIfFaulted(fault);
    }

    /// <inheritdoc />
    public void Rename(string from, string to)
    {
        var fault = NextFault(ref _renameCount, ref _failRenameAt, $"Rename of '{from}' to '{to}'", out var after);
        Apply(fault, after, () => Inner.Rename(from, to));
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
                var torn = _timing == FaultTiming.AfterEffect ? length : Math.Min(Math.Max(_tornAppendLength, 0), length);
                written = (int)Math.Min(torn, remaining);
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

    /// <summary>Counts a flush and says whether it fails, and whether after flushing.</summary>
    internal IOException? NextFlushFault(string name, out bool afterEffect) =>
        NextFault(ref _flushCount, ref _failFlushAt, $"FlushToDisk of '{name}'", out afterEffect);

    /// <summary>Counts a truncate and says whether it fails, and whether after truncating.</summary>
    internal IOException? NextTruncateFault(string name, long length, out bool afterEffect) =>
        NextFault(ref _truncateCount, ref _failTruncateAt, $"Truncate of '{name}' to {length} bytes", out afterEffect);

    /// <summary>Runs <paramref name="effect"/> and throws <paramref name="fault"/>, in the order <paramref name="afterEffect"/> says.</summary>
    internal static void Apply(IOException? fault, bool afterEffect, Action effect)
    {
        if (fault is not null && !afterEffect)
        {
            throw fault;
        }

        effect();
        ThrowIfFaulted(fault);
    }

    private IOException? NextFault(ref int count, ref int? failAt, string what, out bool afterEffect)
    {
        lock (_gate)
        {
            count++;
            _operationCount++;
            afterEffect = _timing == FaultTiming.AfterEffect;
            return failAt == count || _failOperationAt == _operationCount
                ? Injected($"{what} #{count} (operation #{_operationCount})")
                : null;
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
        if (_timing == FaultTiming.AfterEffect)
        {
            _faultsAfterEffect++;
            return new IOException($"Injected fault: {what} failed after taking effect.");
        }

        _faultsBeforeEffect++;
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
