using Stellar.Store.Format;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// An in-memory storage whose appends to one collection's shard files wait while the test holds them: that collection's
/// disk stalls on demand, and its writer with it, while the other collections write on.
/// </summary>
internal sealed class HeldCollectionStorage(MemoryStorage inner) : ForwardingStorage(inner)
{
    private readonly object _gate = new();
    private uint? _held;
    private TaskCompletionSource _released = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private TaskCompletionSource _waiting = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Completes when an append to the held collection's files is waiting.</summary>
    public Task AppendWaiting
    {
        get
        {
            lock (_gate)
            {
                return _waiting.Task;
            }
        }
    }

    /// <summary>From now on, appends to the shard files of collection <paramref name="collectionId"/> wait until <see cref="Release"/>.</summary>
    public void Hold(uint collectionId)
    {
        lock (_gate)
        {
            _held = collectionId;
            _released = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        }
    }

    public void Release()
    {
        lock (_gate)
        {
            _held = null;
            _released.TrySetResult();
        }
    }

    public override IStorageFile Open(string name) =>
        StoreFileNames.TryParseShard(name, out var collectionId, out _) ? new HeldFile(this, collectionId, base.Open(name)) : base.Open(name);

    /// <summary>The id of the collection whose shard files the storage holds now and none other has: the only one listed.</summary>
    public uint OnlyCollection() =>
        List().Select(name => StoreFileNames.TryParseShard(name, out var id, out _) ? id : (uint?)null).OfType<uint>().Distinct().Single();

    private void WaitIfHeld(uint collectionId)
    {
        Task released;
        lock (_gate)
        {
            if (_held != collectionId)
            {
                return;
            }

            released = _released.Task;
            _waiting.TrySetResult();
        }

        Assert.True(released.Wait(TimeSpan.FromMinutes(2)), "the test never released the held appends");
    }

    private sealed class HeldFile(HeldCollectionStorage storage, uint collectionId, IStorageFile inner) : ForwardingFile(inner)
    {
        public override void Append(ReadOnlySpan<byte> data)
        {
            storage.WaitIfHeld(collectionId);
            base.Append(data);
        }
    }
}
