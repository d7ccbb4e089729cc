using Stellar.Store.Storage;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>
/// Real files whose reads of chosen files wait, once the test closes the gate, until it opens it again: a disk that
/// is slow for one collection's shards while every other file reads at full speed.
/// </summary>
internal sealed class GatedReadStorage(string directory) : ForwardingStorage(new FileStorage(directory))
{
    private static readonly TimeSpan LongestWait = TimeSpan.FromMinutes(2);

    private readonly TaskCompletionSource _reached = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private volatile string? _gatedPrefix;
    private TaskCompletionSource _open = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Completes when a read first waits at the closed gate.</summary>
    public Task Reached => _reached.Task;

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

    public override IStorageFile Open(string name) => new GatedFile(this, base.Open(name));

    public override IStorageFile OpenRead(string name) => new GatedFile(this, base.OpenRead(name));

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

    private sealed class GatedFile(GatedReadStorage storage, IStorageFile inner) : ForwardingFile(inner)
    {
        public override int ReadAt(long offset, Span<byte> buffer)
        {
            storage.WaitIfGated(Name);
            return base.ReadAt(offset, buffer);
        }
    }
}
