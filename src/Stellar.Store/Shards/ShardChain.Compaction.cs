using Stellar.Store.Format;

namespace Stellar.Store.Shards;

internal sealed partial class ShardChain
{
    /// <summary>The shard files removed at open (by <see cref="RemoveObsoleteFiles"/>) because the manifest no longer lists them.</summary>
    public List<string> RemovedFiles { get; } = new();

    /// <summary>
    /// Writer only, at the start of a compaction: seals the active shard (its buffered bytes go to the OS and the
    /// next block starts a new shard), takes <paramref name="outputShards"/> fresh shard ids and makes them durable
    /// in the manifest before any block uses them (so no nonce is ever reused, even after a crash), and returns the
    /// shards to compact: every shard that holds blocks. <paramref name="lastSequence"/> is the last sequence
    /// handed out; output blocks use sequences 1 to it, so they replay before every later block.
    /// </summary>
    public (uint[] Prefix, uint[] OutputIds) BeginCompaction(int outputShards, out ulong lastSequence)
    {
        DrainBuffer();
        lastSequence = NextSequence - 1;
        var prefix = _entry.Shards.Where(id => id != ActiveShardId || File(id).Length > 0).ToArray();
        if (prefix.Length == 0 || lastSequence == 0)
        {
            return ([], []);
        }

        _mustRoll = true;
        uint first;
        try
        {
            first = _manifest.ReserveShardIds(_collectionId, outputShards);
        }
        finally
        {
            Refresh();
        }

        var outputIds = Enumerable.Range(0, outputShards).Select(i => first + (uint)i).ToArray();
        foreach (var id in outputIds)
        {
            _salts[id] = ShardHeader.New(_collectionId, id).Salt;
        }

        return (prefix, outputIds);
    }

    /// <summary>
    /// Off the writer: the header of a compaction output shard, with the salt taken for it at begin.
    /// </summary>
    public ShardHeader OutputHeader(uint shardId) => new(_collectionId, shardId, _salts[shardId]);

    /// <summary>
    /// Writer only: swaps the compacted <paramref name="prefix"/> for <paramref name="outputs"/> (complete, flushed
    /// and sealed shard files, described by <paramref name="outputDetails"/>) with one atomic manifest replace, which
    /// records <paramref name="compactedThrough"/>, the last sequence the prefix held (see <see cref="ManifestCollection.CompactedThrough"/>). When
    /// the replace throws, its outcome is unknown: memory keeps the new chain, the old files stay open and on disk,
    /// and the exception propagates (the writer faults; the next open finds whichever manifest is on disk, and both
    /// file sets). The old files stay until <see cref="DeleteRetired"/> either way: readers of older snapshots may
    /// still read large values from them.
    /// </summary>
    public void CompleteCompaction(uint[] prefix, IReadOnlyList<uint> outputs, IReadOnlyDictionary<uint, ManifestShard> outputDetails, ulong compactedThrough)
    {
        try
        {
            _manifest.ReplaceChain(_collectionId, prefix, outputs, outputDetails, compactedThrough);
        }
        finally
        {
            Refresh();
        }

        foreach (var shardId in prefix)
        {
            if (_files.Remove(shardId, out var file))
            {
                file.Dispose();
            }

            _touched.Remove(shardId);
        }
    }

    /// <summary>Writer only: deletes shard files a compaction replaced, once no reader can need them.</summary>
    public void DeleteRetired(IEnumerable<uint> shards)
    {
        foreach (var shardId in shards)
        {
            RetireReadHandle(shardId);
            try
            {
                _storage.Delete(StoreFileNames.Shard(_collectionId, shardId));
            }
            catch (IOException)
            {
                // The compaction is complete: the manifest no longer names the file, and the next open removes it.
            }
        }
    }

    /// <summary>
    /// At open, only once every listed shard of every collection was found and verified: deletes this collection's
    /// shard files that the manifest does not list but whose ids it handed out (a compaction's output or input, or a
    /// new shard, cut short by a crash). They never hold the only copy of a committed block: a shard is listed
    /// before its first block is written, and a compaction's output is listed only after it is flushed, in the same
    /// manifest replace that unlists its input. A file whose id the manifest never handed out (at or past
    /// <see cref="ManifestCollection.NextShardId"/>: the manifest was rolled back, or copied older than its shards)
    /// is not the manifest's to judge: it stays (reported as ignored), and the next id moves past it, so that no id
    /// is handed out twice.
    /// </summary>
    public void RemoveObsoleteFiles()
    {
        var listed = _entry.Shards.ToHashSet();
        var handedOut = _entry.NextShardId;
        foreach (var name in _storage.List())
        {
            if (!StoreFileNames.TryParseShard(name, out var collectionId, out var id) || collectionId != _collectionId)
            {
                continue;
            }

            if (id >= handedOut)
            {
                _manifest.MoveShardIdsPast(_collectionId, id);
                Refresh();
            }
            else if (!listed.Contains(id) || StoreFileNames.IsCompacting(name))
            {
                _storage.Delete(name);
                RemovedFiles.Add(name);
            }
        }
    }
}
