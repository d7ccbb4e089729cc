using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>Real files whose appends wait until the test opens the gate: a disk that has stalled.</summary>
internal sealed class StalledStorage(string directory) : IStorage
{
    private readonly FileStorage _inner = new(directory);
    private readonly TaskCompletionSource _open = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public string Location => _inner.Location;

    public void Open() => _open.TrySetResult();

    public IStorageFile Open(string name) => new StalledFile(this, _inner.Open(name));

    public IStorageFile OpenRead(string name) => _inner.OpenRead(name);

    public bool Exists(string name) => _inner.Exists(name);

    public IReadOnlyList<string> List() => _inner.List();

    public void Delete(string name) => _inner.Delete(name);

    public byte[] ReadAllBytes(string name) => _inner.ReadAllBytes(name);

    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content) => _inner.ReplaceAtomically(name, content);

    public void Rename(string from, string to) => _inner.Rename(from, to);

    public IDisposable AcquireLock() => _inner.AcquireLock();

    private sealed class StalledFile(StalledStorage storage, IStorageFile inner) : IStorageFile
    {
        public string Name => inner.Name;

        public long Length => inner.Length;

        public void Append(ReadOnlySpan<byte> data)
        {
            storage._open.Task.Wait(TimeSpan.FromMinutes(2));
            inner.Append(data);
        }

        public int ReadAt(long offset, Span<byte> buffer) => inner.ReadAt(offset, buffer);

        public void FlushToDisk() => inner.FlushToDisk();

        public void Truncate(long length) => inner.Truncate(length);

        public void Dispose() => inner.Dispose();
    }
}
