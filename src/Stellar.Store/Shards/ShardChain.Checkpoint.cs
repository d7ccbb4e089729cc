using System.Diagnostics;
using Stellar.Store.Checkpoints;
using Stellar.Store.Format;

namespace Stellar.Store.Shards;

/// <summary>A checkpoint's cut of the chain: every block committed so far, shared or copied, never changed.</summary>
internal sealed partial class ShardChain
{
    /// <summary>A checkpoint seals an active shard that holds at least this fraction of <c>MaxShardBytes</c> (see <see cref="CutInto"/>).</summary>
    private const int CheckpointRollFraction = 16;

    /// <summary>
    /// On the writer's turn, between two groups (or, for a collection nobody loaded, while no writer can start): cuts the
    /// chain as committed so far into <paramref name="checkpoint"/>. Sealed shards get a second name there (a hard
    /// link, or a copy where the file system has none); the active shard gets a link to a temporary name, whose first
    /// bytes up to the current length the checkpoint copies later, off the writer, since the writer goes on appending
    /// after them. The checkpoint's entry lists the active shard as sealed at that length. Buffered blocks are handed to
    /// the OS first (a failure there is the store's, and faults the collection); a failure of a link is the
    /// checkpoint's, which it fails, and changes nothing in the store.
    /// </summary>
    public void CutInto(CheckpointBuilder checkpoint)
    {
        DrainBuffer();
        var started = Stopwatch.GetTimestamp();
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

                // A large active shard is sealed at the next write, so that the next checkpoint copies only what was
                // written after this one, and never the same bytes again.
                _mustRoll |= length >= _maxShardBytes / CheckpointRollFraction;
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
