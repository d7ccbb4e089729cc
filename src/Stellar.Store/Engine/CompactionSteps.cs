using System.Diagnostics;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// The writer's part of compaction: runs each staged begin (seal the active shard, reserve output shard ids, pin the
/// version to copy) and finish (swap the output in with one manifest replace, repoint and account the moved
/// records), and deletes the files of compacted shards once no snapshot that may read them is left.
/// </summary>
/// <remarks>Thread safety: writer only, except <see cref="Compactions"/> (any thread).</remarks>
internal sealed class CompactionSteps<TKey, TValue>
    where TKey : notnull
{
    private readonly ShardChain _chain;
    private readonly VersionedMap<TKey, TValue> _map;
    private readonly ShardUsageLedger _ledger;
    private readonly long _maxShardBytes;
    private readonly List<CompactionStep<TKey, TValue>> _staged = new();

    /// <summary>Compacted shards kept for snapshots older than the compaction's pin, with that pin.</summary>
    private readonly List<(long PinnedVersion, uint[] Shards)> _retired = new();
    private long _compactions;

    public CompactionSteps(ShardChain chain, VersionedMap<TKey, TValue> map, ShardUsageLedger ledger, long maxShardBytes)
    {
        _chain = chain;
        _map = map;
        _ledger = ledger;
        _maxShardBytes = maxShardBytes;
    }

    /// <summary>Compactions completed since open.</summary>
    public long Compactions => Volatile.Read(ref _compactions);

    /// <summary>Whether the next commit has steps to run or retired shards to try to delete (work that does I/O).</summary>
    public bool HasWork => _staged.Count > 0 || _retired.Count > 0;

    /// <summary>Queues a step to run at the next commit.</summary>
    public void Stage(CompactionStep<TKey, TValue> step) => _staged.Add(step);

    /// <summary>Drops the staged steps (their group could not be committed).</summary>
    public void Discard() => _staged.Clear();

    /// <summary>At a commit, before its blocks: deletes what no snapshot needs any more, then runs the staged steps in order.</summary>
    public void Run()
    {
        if (_retired.Count > 0)
        {
            DeleteRetiredShards();
        }

        foreach (var step in _staged)
        {
            if (step.Begin)
            {
                Begin(step.Run);
            }
            else
            {
                Finish(step.Run);
            }
        }

        _staged.Clear();
    }

    /// <summary>
    /// Deletes every compacted shard still kept for old snapshots; only once the writer has stopped. While a checkpoint
    /// still reads the chain's files they stay, and the next open removes them (the manifest no longer lists them).
    /// </summary>
    public void DeleteAllRetired()
    {
        if (!_chain.HoldsShardFiles)
        {
            foreach (var (_, shards) in _retired)
            {
                _chain.DeleteRetired(shards);
            }
        }

        _retired.Clear();
    }

    /// <summary>
    /// Deletes the files of compacted shards once no snapshot older than the compaction's pin is left, since only
    /// such a snapshot can still read a large value that was not copied (it was dead at the pin), and no checkpoint
    /// still reads files it listed at its cut.
    /// </summary>
    private void DeleteRetiredShards()
    {
        if (_chain.HoldsShardFiles)
        {
            return;
        }

        for (var i = _retired.Count - 1; i >= 0; i--)
        {
            if (!_map.IsPinnedBelow(_retired[i].PinnedVersion))
            {
                _chain.DeleteRetired(_retired[i].Shards);
                _retired.RemoveAt(i);
            }
        }
    }

    private void Begin(CompactionRun<TKey, TValue> run)
    {
        // Enough output shards for every live byte in blocks of at least half the copier's target size, each at its
        // encoded bound (header, compressor growth, cipher tag), with room for shards that end part full.
        var live = _ledger.LiveBytes;
        var maxBlocks = (2 * live / CompactionCopier<TKey, TValue>.BlockBytes) + 1;
        var bound = BlockLimit.MaxEncodedLength(live) + ((maxBlocks - 1) * BlockLimit.MaxEncodedLength(0));
        var outputShards = (int)Math.Min(2 * bound / _maxShardBytes, int.MaxValue - 2) + 2;

        // Read on this turn, not before it was queued: a hold whose write completed before this begin holds it.
        IReadOnlyList<CompactionHold> holds;
        try
        {
            holds = run.Holds();
        }
        catch (Exception e)
        {
            // Nothing was done yet (the store closing, say): this compaction fails and compacts nothing, rather than
            // pass a hold it could not read, and the collection does not fault.
            run.HoldsFailure = e;
            return;
        }

        // A failure here propagates and faults the collection: the buffered bytes drained here were acknowledged
        // (Buffered mode), and the manifest replace that reserves the ids has an unknown outcome when it throws.
        var (prefix, outputIds) = _chain.BeginCompaction(outputShards, holds, out var lastSequence, out var held, out var passed);
        run.PassedHolds = passed;
        run.Held = held;
        run.Prefix = prefix;
        run.OutputIds = outputIds;
        run.LastSequence = lastSequence;

        if (run.HasWork)
        {
            run.PinnedVersion = _map.Pin().Version;
        }
    }

    private void Finish(CompactionRun<TKey, TValue> run)
    {
        Debug.Assert(run.HasWork && !run.SwapAttempted, "only a run that began with work and was copied is finished, once");
        run.SwapAttempted = true;
        try
        {
            _chain.CompleteCompaction(run.Prefix, run.Outputs, run.OutputDetails, run.LastSequence);
        }
        catch
        {
            // The swap may be on disk: keep both file sets (nothing is retired, nothing deleted) and let the failure
            // fault the collection. Readers still find every value in the old files, which stay open.
            _map.Unpin(run.PinnedVersion);
            throw;
        }

        _ledger.Remove(run.Prefix);

        // Records overwritten or deleted since the pin were copied too, but are dead on arrival.
        foreach (var (key, node, shardId, location) in run.Moved)
        {
            node.ShardId = shardId;
            if (location is not null)
            {
                node.Location = location;
            }

            _ledger.Add(shardId, node.Size, live: ReferenceEquals(_map.Head(key), node));
        }

        _map.Unpin(run.PinnedVersion);
        _retired.Add((run.PinnedVersion, run.Prefix));
        DeleteRetiredShards();
        Interlocked.Increment(ref _compactions);
    }
}
