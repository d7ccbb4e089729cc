using Stellar.Store.Storage;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Diagnostics;

/// <summary>An in-memory storage whose appends wait while the test holds them: a disk that stalls on demand.</summary>
internal sealed class HeldAppendStorage() : ForwardingStorage(new MemoryStorage())
{
    private volatile TaskCompletionSource _gate = Opened();

    /// <summary>From now on, appends wait until <see cref="Release"/>.</summary>
    public void Hold() => _gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

    public void Release() => _gate.TrySetResult();

    public override IStorageFile Open(string name) => new HeldFile(this, base.Open(name));

    private static TaskCompletionSource Opened()
    {
        var gate = new TaskCompletionSource();
        gate.SetResult();
        return gate;
    }

    private sealed class HeldFile(HeldAppendStorage storage, IStorageFile inner) : ForwardingFile(inner)
    {
        public override void Append(ReadOnlySpan<byte> data)
        {
            storage._gate.Task.Wait(TimeSpan.FromMinutes(2));
            base.Append(data);
        }
    }
}
