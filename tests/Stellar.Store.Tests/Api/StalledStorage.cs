using Stellar.Store.Storage;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>Real files whose appends wait until the test opens the gate: a disk that has stalled.</summary>
internal sealed class StalledStorage(string directory) : ForwardingStorage(new FileStorage(directory))
{
    private readonly TaskCompletionSource _open = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public void Open() => _open.TrySetResult();

    public override IStorageFile Open(string name) => new StalledFile(this, base.Open(name));

    private sealed class StalledFile(StalledStorage storage, IStorageFile inner) : ForwardingFile(inner)
    {
        public override void Append(ReadOnlySpan<byte> data)
        {
            storage._open.Task.Wait(TimeSpan.FromMinutes(2));
            base.Append(data);
        }
    }
}
