using Stellar.Store.Storage;

namespace Stellar.Store.Testing;

/// <summary>
/// A file of a <see cref="FaultInjectingStorage"/>: passes every call to the inner file unless the storage's knobs
/// say that this call fails.
/// </summary>
/// <remarks>
/// A fault fires before or after the inner call as <see cref="FaultInjectingStorage.Timing"/> says. A torn append
/// leaves its prefix in the inner file, and <see cref="Length"/> counts it, as
/// <see cref="FileStorageFile"/> counts a prefix that reached the disk. Reads never fail by injection.
/// </remarks>
internal sealed class FaultInjectingStorageFile : IStorageFile
{
    private readonly FaultInjectingStorage _storage;
    private readonly IStorageFile _inner;
    private bool _flushFailed;

    /// <summary>Wraps <paramref name="inner"/>, counting its operations in <paramref name="storage"/>.</summary>
    public FaultInjectingStorageFile(FaultInjectingStorage storage, IStorageFile inner)
    {
        _storage = storage;
        _inner = inner;
    }

    /// <inheritdoc />
    public string Name => _inner.Name;

    /// <inheritdoc />
    public long Length => _inner.Length;

    /// <inheritdoc />
    public void Append(ReadOnlySpan<byte> data)
    {
        var fault = _storage.NextAppendFault(Name, data.Length, out int written);
        if (written > 0)
        {
            _inner.Append(data[..written]);
        }

        if (fault is not null)
        {
            throw fault;
        }
    }

    /// <inheritdoc />
    public int ReadAt(long offset, Span<byte> buffer) => _inner.ReadAt(offset, buffer);

    /// <inheritdoc />
    public void FlushToDisk()
    {
        var fault = _storage.NextFlushFault(Name, out var afterEffect);
        if (fault is null && _flushFailed)
        {
            fault = new IOException($"An earlier flush of '{Name}' failed, so what is on disk is unknown; the file must not be trusted.");
            afterEffect = false;
        }

        _flushFailed |= fault is not null;
        FaultInjectingStorage.Apply(fault, afterEffect, _inner.FlushToDisk);
    }

    /// <inheritdoc />
    public void Truncate(long length)
    {
        var fault = _storage.NextTruncateFault(Name, length, out var afterEffect);
        FaultInjectingStorage.Apply(fault, afterEffect, () => _inner.Truncate(length));
    }

    /// <inheritdoc />
    public void Dispose() => _inner.Dispose();
}
