using Stellar.Store.Storage;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Units;

/// <summary>
/// Real files whose appends wait while the test holds the gate shut: a disk that stalls when told, so that a test can
/// keep a cross-collection round in flight while it queues the units that form the next round.
/// </summary>
internal sealed class GatedStorage(string directory) : ForwardingStorage(new FileStorage(directory))
{
    private TaskCompletionSource _gate = Opened();
    private int _stalled;

    /// <summary>Appends that are waiting at the shut gate now.</summary>
    public int Stalled => Volatile.Read(ref _stalled);

    /// <summary>From now on, appends wait until <see cref="Open"/>.</summary>
    public void Shut() => Volatile.Write(ref _gate, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));

    /// <summary>Lets every waiting and later append through.</summary>
    public void Open() => Volatile.Read(ref _gate).TrySetResult();

    private static TaskCompletionSource Opened()
    {
        var gate = new TaskCompletionSource();
        gate.SetResult();
        return gate;
    }

    public override IStorageFile Open(string name) => new GatedFile(this, base.Open(name));

    private sealed class GatedFile(GatedStorage storage, IStorageFile inner) : ForwardingFile(inner)
    {
        public override void Append(ReadOnlySpan<byte> data)
        {
            Interlocked.Increment(ref storage._stalled);
            try
            {
                Volatile.Read(ref storage._gate).Task.Wait(TimeSpan.FromMinutes(2));
            }
            finally
            {
                Interlocked.Decrement(ref storage._stalled);
            }

            base.Append(data);
        }
    }
}
