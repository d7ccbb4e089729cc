using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>
/// Real files whose reads of chosen files wait, once the test closes the gate, until it opens it again: a disk that
/// is slow for one collection's shards while every other file reads at full speed.
/// </summary>
internal sealed class GatedReadStorage(string directory) : IStorage
{
    private static readonly TimeSpan LongestWait = TimeSpan.FromMinutes(2);

    private readonly FileStorage _inner = new(directory);
    private readonly TaskCompletionSource _reached = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private volatile string? _gatedPrefix;
    private TaskCompletionSource _open = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Completes when a read first waits at the closed gate.</summary>
    public Task Reached => _reached.Task;

    public string Location => _inner.Location;

    /// <summary>From now on, reads of files whose names start with <paramref name="prefix"/> wait for <see cref="OpenGate"/>.</summary>
    public void CloseGate(string prefix)
    {
        _open = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _gatedPrefix = prefix;
    }

    /// <summary>Lets every waiting and later read through.</summary>
    public void OpenGate()
    {
        _gatedPrefix = null;
        _open.TrySetResult();
    }

    public IStorageFile Open(string name) => new GatedFile(this, _inner.Open(name));

    public IStorageFile OpenRead(string name) => new GatedFile(this, _inner.OpenRead(name));

    public bool Exists(string name) => _inner.Exists(name);

    public IReadOnlyList<string> List() => _inner.List();

    public void Delete(string name) => _inner.Delete(name);

    public byte[] ReadAllBytes(string name) => _inner.ReadAllBytes(name);

    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content) => _inner.ReplaceAtomically(name, content);

    public void Rename(string from, string to) => _inner.Rename(from, to);

    public IDisposable AcquireLock() => _inner.AcquireLock();

    private void WaitIfGated(string name)
    {
        if (_gatedPrefix is { } prefix && name.StartsWith(prefix, StringComparison.Ordinal))
        {
            _reached.TrySetResult();
            if (!_open.Task.Wait(LongestWait))
            {
                throw new IOException($"The test never opened the gate in front of '{name}'.");
            }
        }
    }

    private sealed class GatedFile(GatedReadStorage storage, IStorageFile inner) : IStorageFile
    {
        public string Name => inner.Name;

        public long Length => inner.Length;

        public void Append(ReadOnlySpan<byte> data) => inner.Append(data);

        public int ReadAt(long offset, Span<byte> buffer)
        {
            storage.WaitIfGated(Name);
            return inner.ReadAt(offset, buffer);
        }

        public void FlushToDisk() => inner.FlushToDisk();

        public void Truncate(long length) => inner.Truncate(length);

        public void Dispose() => inner.Dispose();
    }
}
