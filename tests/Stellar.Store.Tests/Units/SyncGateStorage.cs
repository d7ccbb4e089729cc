using Stellar.Store.Storage;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Units;

/// <summary>
/// A storage whose fsyncs of the files a test names wait while it holds the gate shut, and which counts the fsyncs of
/// every file: so that a test can hold a part of a cross-collection round between its write and its fsync while the
/// round's decision is made durable, and crash there.
/// </summary>
internal sealed class SyncGateStorage(IStorage inner, Func<string, bool> gated) : ForwardingStorage(inner)
{
    private readonly Func<string, bool> _gated = gated;
    private readonly Dictionary<string, int> _syncs = new();
    private TaskCompletionSource _gate = Opened();
    private int _waiting;

    /// <summary>Gated fsyncs waiting at the shut gate now.</summary>
    public int Waiting => Volatile.Read(ref _waiting);

    /// <summary>From now on, gated fsyncs wait until <see cref="Open"/>.</summary>
    public void Shut() => Volatile.Write(ref _gate, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));

    /// <summary>Lets every waiting and later fsync through.</summary>
    public void Open() => Volatile.Read(ref _gate).TrySetResult();

    /// <summary>The fsyncs that completed on files whose name starts with <paramref name="prefix"/>.</summary>
    public int Syncs(string prefix)
    {
        lock (_syncs)
        {
            return _syncs.Where(s => s.Key.StartsWith(prefix, StringComparison.Ordinal)).Sum(s => s.Value);
        }
    }

    public override IStorageFile Open(string name) => new File(this, name, base.Open(name));

    private static TaskCompletionSource Opened()
    {
        var gate = new TaskCompletionSource();
        gate.SetResult();
        return gate;
    }

    private sealed class File(SyncGateStorage storage, string name, IStorageFile inner) : ForwardingFile(inner)
    {
        public override void FlushToDisk()
        {
            if (storage._gated(name))
            {
                Interlocked.Increment(ref storage._waiting);
                try
                {
                    Volatile.Read(ref storage._gate).Task.Wait(TimeSpan.FromMinutes(2));
                }
                finally
                {
                    Interlocked.Decrement(ref storage._waiting);
                }
            }

            base.FlushToDisk();
            lock (storage._syncs)
            {
                storage._syncs[name] = storage._syncs.GetValueOrDefault(name) + 1;
            }
        }
    }
}
