using Stellar.Store.Storage;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Engine;

/// <summary>Real files that count, while watched, the appends made on a thread of the thread pool and elsewhere.</summary>
internal sealed class PoolWatchingStorage(string directory) : ForwardingStorage(new FileStorage(directory))
{
    private int _watching;
    private int _onPool;
    private int _offPool;

    /// <summary>Appends counted while watched, on a pool thread.</summary>
    public int AppendsOnPool => Volatile.Read(ref _onPool);

    /// <summary>Appends counted while watched, on any other thread.</summary>
    public int AppendsOffPool => Volatile.Read(ref _offPool);

    public bool Watching
    {
        get => Volatile.Read(ref _watching) == 1;
        set => Volatile.Write(ref _watching, value ? 1 : 0);
    }

    public override IStorageFile Open(string name) => new WatchedFile(this, base.Open(name));

    private sealed class WatchedFile(PoolWatchingStorage storage, IStorageFile inner) : ForwardingFile(inner)
    {
        public override void Append(ReadOnlySpan<byte> data)
        {
            if (storage.Watching)
            {
                Interlocked.Increment(ref Thread.CurrentThread.IsThreadPoolThread ? ref storage._onPool : ref storage._offPool);
            }

            base.Append(data);
        }
    }
}
