using System.Diagnostics;
using Stellar.Store.Actors;
using Stellar.Store.Indexes;
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

    /// <summary>The collection's indexes: the unique ones check each write as it is staged.</summary>
    private readonly IndexSet<TKey, TValue> _indexes;

    /// <summary>Whether each key staged in the group exists once the group commits.</summary>
    private readonly Dictionary<TKey, bool> _overlay = new();

    /// <summary>The same, for the batch being staged, until it is accepted whole.</summary>
    private readonly Dictionary<TKey, bool> _batchOverlay = new();
    private readonly List<StagedBlock<TKey, TValue>> _blocks = new();

    /// <summary>The collection's key count once the group commits.</summary>
    private long _count;

    /// <summary>
    /// While a round's part is staged: where its blocks start, the count before it, how to undo its overlay entries,
    /// and where its unique indexes' staged changes start.
    /// </summary>
    private (int FirstBlock, long CountBefore, List<(TKey Key, bool Had, bool Exists)> Undo, int UniqueMark)? _part;

    /// <summary>While a part's units are checked: where its unique indexes' staged changes start (else none).</summary>
    private int _partStart = int.MaxValue;

    public WriteStager(string name, VersionedMap<TKey, TValue> map, IndexSet<TKey, TValue> indexes, int maxBlockBytes, int largeValueBytes)
    {
        _indexes = indexes;
        _name = name;
        _map = map;
        _maxBlockBytes = maxBlockBytes;
        _largeValueBytes = largeValueBytes;
    }

    /// <summary>The blocks staged so far, in commit order.</summary>
    public IReadOnlyList<StagedBlock<TKey, TValue>> Blocks => _blocks;

    /// <summary>The collection's key count once the staged group commits.</summary>
    public long Count => _count;

    /// <summary>The key count once the staged group but its round's part commits (<see cref="Count"/> without a part).</summary>
    public long CountBeforePart => _part?.CountBefore ?? _count;

    /// <summary>Whether the group ends with a round's part (its blocks are the last ones, tagged).</summary>
    public bool HasPart => _part is not null;

    public Exception? StagePart(UnitPartWrite<TKey, TValue> part)
    {
        Debug.Assert(_part is null, "a group holds at most one part, staged last");
        var undo = new List<(TKey Key, bool Had, bool Exists)>();
        var countBefore = _count;
        var uniqueMark = _indexes.Mark;
        _partStart = uniqueMark;
        List<(int Unit, Exception Cause)>? rejections = null;
        var accepted = new List<SingleWrite<TKey, TValue>>();
        foreach (var (unit, writes) in part.Units)
        {
            // Each unit is checked against the state the units accepted before it leave, as an atomic batch is.
            var rejection = Check(writes, atomic: true, out var kept);
            if (rejection is not null)
            {
                // Rejected only because of units before it in the part, which may not commit: a conflict, not a rejection.
                // A unique index tells a conflict with an earlier unit of the part itself.
                var conflict = rejection is RoundConflictException || (undo.Count > 0 && !RejectedWithout(undo, writes));
                (rejections ??= new()).Add((unit, conflict && rejection is not RoundConflictException ? new RoundConflictException(rejection) : rejection));
                continue;
            }

            foreach (var (key, exists) in _batchOverlay)
            {
                undo.Add((key, _overlay.TryGetValue(key, out var before), before));
                SetInOverlay(key, exists);
            }

            accepted.AddRange(kept);
        }

        _partStart = int.MaxValue;
        _part = (_blocks.Count, countBefore, undo, uniqueMark);
        if (rejections is not null)
        {
            Unstage();
            return new PartRejectedException(rejections);
        }

        StagedBlock<TKey, TValue>? block = null;
        foreach (var write in accepted)
        {
            if (block is null || (block.Writes.Count > 0 && block.Bytes + write.Length > TargetBlockBytes))
            {
                block = NewBlock(new StagedBlock<TKey, TValue>(part.Tag));
            }

            block.Add(write, _largeValueBytes);
        }

        return null;
    }

    /// <summary>
    /// Whether <paramref name="writes"/> are rejected against the staged state without the part's units accepted so far,
    /// whose overlay entries <paramref name="undo"/> lists: the state that commits whatever the round's outcome.
    /// </summary>
    private bool RejectedWithout(List<(TKey Key, bool Had, bool Exists)> undo, List<SingleWrite<TKey, TValue>> writes)
    {
        var current = new Dictionary<TKey, bool>();
        for (var i = undo.Count - 1; i >= 0; i--)
        {
            var (key, had, exists) = undo[i];
            current.TryAdd(key, _overlay[key]);
            if (had)
            {
                _overlay[key] = exists;
            }
            else
            {
                _overlay.Remove(key);
            }
        }

        // Only the overlay is rolled back and restored; the count is not touched, and the check changes nothing else (what
        // it staged in unique indexes is taken back). A conflict a unique index finds with an earlier unit is no rejection.
        var uniqueMark = _indexes.Mark;
        var rejected = Check(writes, atomic: true, out _) is { } rejection && rejection is not RoundConflictException;
        _indexes.RollBack(uniqueMark);
        foreach (var (key, exists) in current)
        {
            _overlay[key] = exists;
        }

        return rejected;
    }

    /// <summary>Drops the round's part staged last: its blocks, its overlay entries and its change of the count.</summary>
    public void Unstage()
    {
        Debug.Assert(_part is not null, "only a staged part is unstaged");
        var (firstBlock, countBefore, undo, uniqueMark) = _part.Value;
        _indexes.RollBack(uniqueMark);
        _blocks.RemoveRange(firstBlock, _blocks.Count - firstBlock);
        for (var i = undo.Count - 1; i >= 0; i--)
        {
            var (key, had, exists) = undo[i];
            if (had)
            {
                _overlay[key] = exists;
            }
            else
            {
                _overlay.Remove(key);
            }
        }

        _count = countBefore;
        _part = null;
    }

    public Exception? StageSingle(SingleWrite<TKey, TValue> write, out bool existed)
    {
        existed = Exists(write.Key, _overlay);
        var rejection = Reject(write, existed);
        if (rejection is not null)
        {
            return rejection;
        }

        if (write.Kind == WriteKind.Delete && !Stored(write.Key, _overlay))
        {
            // Deleting a missing key changes nothing, so it costs nothing. An expired record is missing to readers but
            // still stored: its delete is written, so that a reopen agrees.
            return null;
        }

        if (_indexes.StageUnique(write.Key, write.Kind == WriteKind.Delete, write.Value, int.MaxValue) is { } unique)
        {
            return unique;
        }

        SetInOverlay(write.Key, write.Kind != WriteKind.Delete);
        OpenBlock(write.Length, mustFit: false).Add(write, _largeValueBytes);
        return null;
    }

    public Exception? StageBatch(BatchWrite<TKey, TValue> batch)
    {
        // A block behind a rejected block of its import is rejected too: the import stores a prefix of its source.
        return batch.Chain is { } chain ? chain.Stage(() => StageBatchAlone(batch)) : StageBatchAlone(batch);
    }

    private Exception? StageBatchAlone(BatchWrite<TKey, TValue> batch)
    {
        // A batch is one block: one the reader would refuse must be rejected here, before anything is written.
        // The collection checks atomic batches before submitting them and sizes import chunks well under this.
        if (batch.Bytes > _maxBlockBytes)
        {
            return CollectionEngine<TKey, TValue>.TooLargeForOneBlock(batch.Bytes, _maxBlockBytes, "write");
        }

        var rejection = Check(batch.Writes, batch.Atomic, out var kept);
        if (rejection is not null)
        {
            return rejection;
        }

        foreach (var (key, exists) in _batchOverlay)
        {
            SetInOverlay(key, exists);
        }

        if (kept.Count > 0)
        {
            var bytes = kept.Sum(w => (long)w.Length);
            var block = batch.Atomic ? OpenBlock(bytes, mustFit: true) : NewBlock(new StagedBlock<TKey, TValue>());
            foreach (var write in kept)
            {
                block.Add(write, _largeValueBytes);
            }
        }

        return null;
    }

    /// <summary>
    /// Checks <paramref name="writes"/> in order against the staged state as the earlier ones leave it, into
    /// <see cref="_batchOverlay"/>; with <paramref name="atomic"/>, the first broken precondition rejects them all. A
    /// write that would break a unique index rejects them all, atomic or not (it cannot be stored), and what they
    /// staged in unique indexes is taken back. <paramref name="kept"/> leaves out deletes of missing keys, which change
    /// nothing.
    /// </summary>
    private Exception? Check(List<SingleWrite<TKey, TValue>> writes, bool atomic, out List<SingleWrite<TKey, TValue>> kept)
    {
        _batchOverlay.Clear();
        kept = new List<SingleWrite<TKey, TValue>>(writes.Count);
        var uniqueMark = _indexes.Mark;
        foreach (var write in writes)
        {
            var inBatch = _batchOverlay.TryGetValue(write.Key, out var staged);
            var rejection = atomic ? Reject(write, inBatch ? staged : Exists(write.Key, _overlay)) : null;
            if (write.Kind == WriteKind.Delete && !(inBatch ? staged : Stored(write.Key, _overlay)) && rejection is null)
            {
                continue;
            }

            rejection ??= _indexes.StageUnique(write.Key, write.Kind == WriteKind.Delete, write.Value, _partStart);
            if (rejection is not null)
            {
                _batchOverlay.Clear();
                _indexes.RollBack(uniqueMark);
                return rejection;
            }

            _batchOverlay[write.Key] = write.Kind != WriteKind.Delete;
            kept.Add(write);
        }

        return null;
    }

    /// <summary>After the group committed and was published: starts the next group from the published state.</summary>
    public void Committed()
    {
        Debug.Assert(_part is not null || _count == _map.Published.Count, "the published count is the one staging computed");
        _blocks.Clear();
        _overlay.Clear();
        _indexes.ClearStaged();
        _part = null;
    }

    /// <summary>Drops the staged group (it could not be committed); the next group starts from the published state.</summary>
    public void Discard()
    {
        _blocks.Clear();
        _overlay.Clear();
        _indexes.ClearStaged();
        _part = null;
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

    /// <summary>Whether a reader would find <paramref name="key"/> once the staged writes commit (an expired record is missing).</summary>
    private bool Exists(TKey key, Dictionary<TKey, bool> overlay) =>
        overlay.TryGetValue(key, out var exists) ? exists : _map.TryGetLatest(key, out _);

    /// <summary>
    /// Whether <paramref name="key"/> is stored as a value once the staged writes commit, expired or not: what the
    /// collection's count (<see cref="PublishedState.Count"/>) counts, and what a delete must remove.
    /// </summary>
    private bool Stored(TKey key, Dictionary<TKey, bool> overlay) =>
        overlay.TryGetValue(key, out var stored) ? stored : _map.Stored(key);

    /// <summary>Whether a write staged in the group touches <paramref name="key"/>.</summary>
    public bool Staged(TKey key) => _overlay.ContainsKey(key);

    private void SetInOverlay(TKey key, bool exists)
    {
        var before = Stored(key, _overlay);
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

        var block = NewBlock(new StagedBlock<TKey, TValue>());
        if (mustFit && bytes > TargetBlockBytes)
        {
            block.Sealed = true;
        }

        return block;
    }

    private StagedBlock<TKey, TValue> NewBlock(StagedBlock<TKey, TValue> block)
    {
        if (_blocks.Count > 0)
        {
            _blocks[^1].Sealed = true;
        }

        _blocks.Add(block);
        return block;
    }
}
