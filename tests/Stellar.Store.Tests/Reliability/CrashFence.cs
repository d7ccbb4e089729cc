using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// The boundary of a simulated process: wraps the storage one store instance uses, and <see cref="Crash"/> runs a
/// crash of the inner storage only once no write of that instance is in progress, after which every write of it
/// fails. Without it, a write already past its checks could land in the storage after the simulated crash, as if
/// the dead process had written on, which no real crash allows. Reads pass through.
/// </summary>
internal sealed class CrashFence : IStorage, IDisposable
{
    private readonly IStorage _inner;
    private readonly ReaderWriterLockSlim _gate = new();
    private bool _crashed;

    public CrashFence(IStorage inner) => _inner = inner;

    public string Location => _inner.Location;

    /// <summary>Waits for writes in progress, runs <paramref name="crash"/>, and fails every write from then on.</summary>
    public void Crash(Action crash)
    {
        _gate.EnterWriteLock();
        try
        {
            _crashed = true;
            crash();
        }
        finally
        {
            _gate.ExitWriteLock();
        }
    }

    public IStorageFile Open(string name) => Write(() => (IStorageFile)new File(this, _inner.Open(name)));

    public IStorageFile OpenRead(string name) => new File(this, _inner.OpenRead(name));

    public bool Exists(string name) => _inner.Exists(name);

    public IReadOnlyList<string> List() => _inner.List();

    public void Delete(string name) => Write(() => _inner.Delete(name));

    public byte[] ReadAllBytes(string name) => _inner.ReadAllBytes(name);

    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content)
    {
        var copy = content.ToArray();
        Write(() => _inner.ReplaceAtomically(name, copy));
    }

    public void Rename(string from, string to) => Write(() => _inner.Rename(from, to));

    public IDisposable AcquireLock() => _inner.AcquireLock();

    public void Dispose() => _gate.Dispose();

    private void Write(Action write) => Write(() =>
    {
        write();
        return true;
    });

    private T Write<T>(Func<T> write)
    {
        _gate.EnterReadLock();
        try
        {
            return _crashed ? throw new IOException("The process crashed (simulated): it writes nothing more.") : write();
        }
        finally
        {
            _gate.ExitReadLock();
        }
    }

    private sealed class File(CrashFence fence, IStorageFile inner) : IStorageFile
    {
        public string Name => inner.Name;

        public long Length => inner.Length;

        public void Append(ReadOnlySpan<byte> data)
        {
            var copy = data.ToArray();
            fence.Write(() => inner.Append(copy));
        }

        public int ReadAt(long offset, Span<byte> buffer) => inner.ReadAt(offset, buffer);

        public void FlushToDisk() => fence.Write(inner.FlushToDisk);

        public void Truncate(long length) => fence.Write(() => inner.Truncate(length));

        public void Dispose() => inner.Dispose();
    }
}
