using System.Diagnostics;
using Stellar.Store.Checkpoints;
using Stellar.Store.Format;

namespace Stellar.Store.Shards;

/// <summary>A checkpoint's cut of the chain: every block committed so far, shared or copied, never changed.</summary>
internal sealed partial class ShardChain
{
    /// <summary>Checkpoints still reading this chain's shard files (see <see cref="CutInto"/>).</summary>
    private int _checkpointHolds;

    /// <summary>
    /// Whether a checkpoint still reads shard files it listed at its cut: a compaction's retired shards are deleted only
    /// after. Any thread.
    /// </summary>
    public bool HoldsShardFiles => Volatile.Read(ref _checkpointHolds) > 0;

    /// <summary>
    /// At open, for a store that has checkpoints: an active shard that holds a block is sealed at the next write, as
    /// after a cut (see <see cref="CutInto"/>), so that the next checkpoint links those blocks instead of copying them.
    /// </summary>
    public void SealActiveAtNextWrite() => _mustRoll |= _activeLastSequence is not null;

    /// <summary>
    /// On the writer's turn, between two groups (or, for a collection nobody loaded, while no writer can start): cuts the
    /// chain as committed so far into <paramref name="checkpoint"/>, which links its sealed shards and copies the
    /// active shard's bytes up to the current length later, off the writer (<see cref="CheckpointBuilder.Finish"/>);
    /// until then the chain keeps every shard file from deletion (<see cref="HoldsShardFiles"/>). The writer's turn
    /// costs no system call but handing buffered blocks to the OS. The checkpoint's entry lists the active shard as sealed
    /// at that length, and an active shard that holds a block is sealed at the next write, so that the next checkpoint
    /// links it and copies only blocks written after this cut. A failure there is the store's, and faults the
    /// collection; a failure of the cut is the checkpoint's, which it fails, and changes nothing in the store.
    /// </summary>
    public void CutInto(CheckpointBuilder checkpoint)
    {
        DrainBuffer();
        var started = Stopwatch.GetTimestamp();
        Interlocked.Increment(ref _checkpointHolds);
        checkpoint.Hold(() => Interlocked.Decrement(ref _checkpointHolds));
        try
        {
            var entry = _entry;
            var details = new Dictionary<uint, ManifestShard>(entry.ShardDetails);
            foreach (var shardId in entry.Shards)
            {
                var name = StoreFileNames.Shard(_collectionId, shardId);
                var path = _storage.FilePath(name)
                    ?? throw new NotSupportedException("Checkpoints need a store on files: this store's storage keeps none.");
                if (details.TryGetValue(shardId, out var shard) && shard.SealedLength is { } sealedLength)
                {
                    checkpoint.Share(path, name, sealedLength);
                    continue;
                }

                Debug.Assert(shardId == ActiveShardId, "only the active shard is unsealed");
                var length = File(shardId).Length;
                checkpoint.KeepPrefix(path, name, length);
                _mustRoll |= _activeLastSequence is not null;
                details[shardId] = new ManifestShard { Salt = shard?.Salt, FirstSequence = shard?.FirstSequence, SealedLength = length, LastSequence = _activeLastSequence };
            }

            checkpoint.Add(ManifestStore.Copy(entry, details: details));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException)
        {
            checkpoint.Fail(e);
        }
        finally
        {
            checkpoint.Paused(Stopwatch.GetElapsedTime(started));
        }
    }
}
