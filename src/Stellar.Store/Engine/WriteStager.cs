using System.Diagnostics;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// The writer's view of a commit group as it gathers: checks each write's preconditions against the collection as
/// it will be once everything staged so far commits (the published map under an overlay of staged keys), and packs
/// the accepted writes into blocks. It does no I/O; the commit pipeline writes the blocks it staged.
/// </summary>
/// <remarks>Thread safety: writer only (the actor never overlaps two calls).</remarks>
internal sealed class WriteStager<TKey, TValue>
    where TKey : notnull
{
    /// <summary>Single writes are packed into blocks up to this many raw bytes.</summary>
    internal const int TargetBlockBytes = 64 * 1024;

    private readonly string _name;
    private readonly VersionedMap<TKey, TValue> _map;
    private readonly int _maxBlockBytes;
    private readonly int _largeValueBytes;

    /// <summary>Whether each key staged in the group exists once the group commits.</summary>
    private readonly Dictionary<TKey, bool> _overlay = new();

    /// <summary>The same, for the batch being staged, until it is accepted whole.</summary>
    private readonly Dictionary<TKey, bool> _batchOverlay = new();
    private readonly List<StagedBlock<TKey, TValue>> _blocks = new();

    /// <summary>The collection's key count once the group commits.</summary>
    private long _count;

    public WriteStager(string name, VersionedMap<TKey, TValue> map, int maxBlockBytes, int largeValueBytes)
    {
        _name = name;
        _map = map;
        _maxBlockBytes = maxBlockBytes;
        _largeValueBytes = largeValueBytes;
    }

    /// <summary>The blocks staged so far, in commit order.</summary>
    public IReadOnlyList<StagedBlock<TKey, TValue>> Blocks => _blocks;

    /// <summary>The collection's key count once the staged group commits.</summary>
    public long Count => _count;

    public Exception? StageSingle(SingleWrite<TKey, TValue> write, out bool existed)
    {
        existed = Exists(write.Key, _overlay);
        var rejection = Reject(write, existed);
        if (rejection is not null)
        {
            return rejection;
        }

        if (write.Kind == WriteKind.Delete && !existed)
        {
            // Deleting a missing key changes nothing, so it costs nothing.
            return null;
        }

        SetInOverlay(write.Key, write.Kind != WriteKind.Delete);
        OpenBlock(write.Length, mustFit: false).Add(write, _largeValueBytes);
        return null;
    }

    public Exception? StageBatch(BatchWrite<TKey, TValue> batch)
    {
        // A batch is one block: one the reader would refuse must be rejected here, before anything is written.
        // The collection checks atomic batches before submitting them and sizes import chunks well under this.
        if (batch.Bytes > _maxBlockBytes)
        {
            return CollectionEngine<TKey, TValue>.TooLargeForOneBlock(batch.Bytes, _maxBlockBytes, "write");
        }

        _batchOverlay.Clear();
        var kept = new List<SingleWrite<TKey, TValue>>(batch.Writes.Count);
        foreach (var write in batch.Writes)
        {
            var exists = _batchOverlay.TryGetValue(write.Key, out var inBatch) ? inBatch : Exists(write.Key, _overlay);
            var rejection = batch.Atomic ? Reject(write, exists) : null;
            if (rejection is not null)
            {
                return rejection;
            }

            if (write.Kind == WriteKind.Delete && !exists)
            {
                continue;
            }

            _batchOverlay[write.Key] = write.Kind != WriteKind.Delete;
            kept.Add(write);
        }

        foreach (var (key, exists) in _batchOverlay)
        {
            SetInOverlay(key, exists);
        }

        if (kept.Count > 0)
        {
            var bytes = kept.Sum(w => (long)w.Length);
            var block = batch.Atomic ? OpenBlock(bytes, mustFit: true) : NewBlock();
            foreach (var write in kept)
            {
                block.Add(write, _largeValueBytes);
            }
        }

        return null;
    }

    /// <summary>After the group committed and was published: starts the next group from the published state.</summary>
    public void Committed()
    {
        _blocks.Clear();
        _overlay.Clear();
        Debug.Assert(_count == _map.Published.Count, "the published count is the one staging computed");
    }

    /// <summary>Drops the staged group (it could not be committed); the next group starts from the published state.</summary>
    public void Discard()
    {
        _blocks.Clear();
        _overlay.Clear();
        _count = _map.Published.Count;
    }

    /// <summary>After load: the collection holds <paramref name="count"/> keys.</summary>
    public void Loaded(long count) => _count = count;

    private Exception? Reject(SingleWrite<TKey, TValue> write, bool exists) => write.Kind switch
    {
        WriteKind.Insert when exists => new DuplicateKeyException(_name, write.Key),
        WriteKind.Update when !exists => new KeyNotFoundException($"Collection '{_name}' holds no key '{write.Key}' to update."),
        _ => null,
    };

    private bool Exists(TKey key, Dictionary<TKey, bool> overlay) =>
        overlay.TryGetValue(key, out var exists) ? exists : _map.TryGetLatest(key, out _);

    private void SetInOverlay(TKey key, bool exists)
    {
        var before = Exists(key, _overlay);
        _count += (exists ? 1 : 0) - (before ? 1 : 0);
        _overlay[key] = exists;
        Debug.Assert(_count >= 0, "a group cannot delete more keys than exist");
    }

    private StagedBlock<TKey, TValue> OpenBlock(long bytes, bool mustFit)
    {
        Debug.Assert(bytes <= _maxBlockBytes, "single records are bounded by the key and value limits, batches by StageBatch");
        if (_blocks.Count > 0)
        {
            var last = _blocks[^1];
            if (!last.Sealed && last.Bytes + bytes <= TargetBlockBytes)
            {
                return last;
            }
        }

        var block = NewBlock();
        if (mustFit && bytes > TargetBlockBytes)
        {
            block.Sealed = true;
        }

        return block;
    }

    private StagedBlock<TKey, TValue> NewBlock()
    {
        if (_blocks.Count > 0)
        {
            _blocks[^1].Sealed = true;
        }

        var block = new StagedBlock<TKey, TValue>();
        _blocks.Add(block);
        return block;
    }
}
