using Stellar.Store.Format;

namespace Stellar.Store.Shards;

internal sealed partial class ShardChain
{
    /// <summary>A sealed shard shorter than this fraction of <c>MaxShardBytes</c> is small (see <see cref="WantsMerge"/>).</summary>
    private const int SmallShardFraction = 16;

    /// <summary>How many more small sealed shards gather before the chain asks for a compaction that merges them.</summary>
    public const int SmallShardsPerMerge = 64;

    /// <summary>The small sealed shards in the chain, as of the last change to its entry.</summary>
    private int _smallSealedShards;

    /// <summary>The count of small sealed shards at which <see cref="WantsMerge"/> next asks for a compaction.</summary>
    private int _mergeAt = SmallShardsPerMerge;

    /// <summary>
    /// Writer only, after a commit: whether <see cref="SmallShardsPerMerge"/> small sealed shards gathered since the last
    /// compaction or the last time this said so. Checkpoints seal the active shard of every collection written since
    /// the last one, so frequent checkpoints leave a trail of small shards behind a collection that never overwrites (and
    /// so never gathers dead bytes); a compaction merges them, so that the shard count, the manifest, and every later
    /// checkpoint's links stay bounded.
    /// </summary>
    public bool WantsMerge()
    {
        if (_smallSealedShards < _mergeAt)
        {
            return false;
        }

        _mergeAt = _smallSealedShards + SmallShardsPerMerge;
        return true;
    }

    /// <summary>The shard files removed at open (by <see cref="RemoveObsoleteFiles"/>) because the manifest no longer lists them.</summary>
    public List<string> RemovedFiles { get; } = new();

    /// <summary>
    /// Writer only, at the start of a compaction: takes <paramref name="outputShards"/> fresh shard ids and makes them
    /// durable in the manifest before any block uses them (so no nonce is ever reused, even after a crash), and returns
    /// the shards to compact, a prefix of the chain. Without a hold that keeps any of it, that is every shard that holds
    /// blocks: the active shard is sealed (its buffered bytes go to the OS and the next block starts a new shard), and
    /// <paramref name="lastSequence"/> is the last sequence handed out. Otherwise (<paramref name="held"/>) it is the
    /// shards whose every block comes before what each holding cursor acknowledged, and <paramref name="lastSequence"/>
    /// the last sequence before both that point and the first shard kept. Output blocks use sequences 1 to
    /// <paramref name="lastSequence"/>, so they replay before every block left in the chain or written later. Nothing is
    /// compacted when the prefix replaces no block after the last compaction's (its snapshot positions stay valid).
    /// <paramref name="passed"/> are the holds past their bound whose cursor's history the compaction replaces.
    /// </summary>
    public (uint[] Prefix, uint[] OutputIds) BeginCompaction(int outputShards, IReadOnlyList<CompactionHold> holds, out ulong lastSequence, out bool held,
        out IReadOnlyList<PassedHold> passed)
    {
        DrainBuffer();
        passed = [];
        var compactedThrough = _entry.CompactedThrough ?? 0;
        var keepFrom = KeepFrom(holds, compactedThrough, out var overBound);
        var shards = _entry.Shards;
        var count = 0;
        while (keepFrom != ulong.MaxValue && count < shards.Count && EndsBefore(count, keepFrom))
        {
            count++;
        }

        held = keepFrom != ulong.MaxValue && count < shards.Count;
        uint[] prefix;
        if (held)
        {
            // The kept shards stay as they are, the active one among them: nothing rolls.
            prefix = shards.Take(count).ToArray();
            var firstKept = _entry.ShardDetails.GetValueOrDefault(shards[count])?.FirstSequence;
            var bound = firstKept is { } keptFirst ? Math.Min(keepFrom, keptFirst) : LastSequenceOf(prefix) + 1;
            lastSequence = bound > 0 ? bound - 1 : 0;
        }
        else
        {
            prefix = shards.Where(id => id != ActiveShardId || File(id).Length > 0).ToArray();
            lastSequence = NextSequence - 1;
        }

        if (prefix.Length == 0 || lastSequence <= compactedThrough)
        {
            return ([], []);
        }

        // A hold past its bound is passed only when this compaction replaces the block its cursor reads next (any block
        // for a cursor at the start): a hold that another cursor's covers loses nothing.
        var last = lastSequence;
        passed = overBound.Where(o => o.From <= last).Select(o => o.Hold).ToList();

        _mustRoll |= !held;
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

        _mergeAt = _smallSealedShards + SmallShardsPerMerge;
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
    /// before its first block is written, and a manifest on disk hands out a new shard's id only in the replace that
    /// lists it; a compaction's output is listed only after it is flushed, in the same manifest replace that unlists
    /// its input. A file whose id the manifest never handed out (at or past <see cref="ManifestCollection.NextShardId"/>:
    /// the manifest was rolled back, or copied older than its shards), or that it records as kept (an earlier open
    /// found it so), is not the manifest's to judge: it stays, reported as ignored, and the next id moves past it, so
    /// that no id is handed out twice. It is recorded as kept, so that no later open deletes it either, unless it is
    /// no longer than a shard header: that holds no block (a roll a crash cut short), and once the next id past it is
    /// saved, a later open deletes it like any such leftover. Such a file holding blocks proves the manifest older
    /// than the folder, and then every unlisted file with blocks may be one a newer manifest lists (a compaction's
    /// output, whose id the manifest handed out before a player put it back over the folder): none is deleted, and
    /// each is kept as above. Nor is anything
    /// deleted when the manifest was not authenticated (an encrypted store's format-1 manifest, which has no MAC):
    /// open never deletes data to make itself succeed on a list nobody vouched for, so unlisted files stay, reported as
    /// ignored, and those with blocks are recorded as kept in the manifest this open signed.
    /// </summary>
    public void RemoveObsoleteFiles()
    {
        var listed = _entry.Shards.ToHashSet();
        var kept = _entry.KeptShards?.ToHashSet() ?? [];
        var handedOut = _entry.NextShardId;
        var found = new HashSet<uint>();
        var holding = new HashSet<uint>();
        var obsolete = new List<(string Name, uint Id)>();
        foreach (var name in _storage.List())
        {
            if (!StoreFileNames.TryParseShard(name, out var collectionId, out var id) || collectionId != _collectionId)
            {
                continue;
            }

            // Nothing vouches for an unauthenticated manifest's list, and the open signs it: a file it leaves out is kept
            // on the signed one too, or the next open would take it for a leftover of this manifest and delete it.
            var unvouched = _manifest.IsUnauthenticated && !listed.Contains(id) && !StoreFileNames.IsCompacting(name);
            if (id >= handedOut || kept.Contains(id) || unvouched)
            {
                found.Add(id);
                if (HoldsBlocks(name))
                {
                    holding.Add(id);
                }
            }
            else if ((!listed.Contains(id) || StoreFileNames.IsCompacting(name)) && !_manifest.IsUnauthenticated)
            {
                obsolete.Add((name, id));
            }
        }

        var olderThanTheFolder = holding.Any(id => id >= handedOut);
        foreach (var (name, id) in obsolete)
        {
            if (olderThanTheFolder && !StoreFileNames.IsCompacting(name) && HoldsBlocks(name))
            {
                found.Add(id);
                holding.Add(id);
                continue;
            }

            _storage.Delete(name);
            RemovedFiles.Add(name);
        }

        if (found.Count > 0 || kept.Count > 0)
        {
            _manifest.KeepShards(_collectionId, holding, found.Count == 0 ? null : found.Max());
            Refresh();
        }
    }

    /// <summary>Whether the shard file <paramref name="name"/> is longer than a shard header: it may hold blocks.</summary>
    private bool HoldsBlocks(string name)
    {
        using var file = _storage.OpenRead(name);
        return file.Length > ShardHeader.Size;
    }

    /// <summary>
    /// The first sequence the <paramref name="holds"/> keep from compaction (<see cref="ulong.MaxValue"/>: none keeps
    /// any). A cursor keeps the history after its position: all of it while it stands at the start or in the last
    /// compaction's snapshot, which a compaction would replace; nothing when its position is gone already. A hold that
    /// would keep more than its bound of shard bytes keeps nothing: compaction goes on, and the cursor finds its
    /// position unavailable. <paramref name="overBound"/> are those holds, each with the first sequence it would keep.
    /// </summary>
    private ulong KeepFrom(IReadOnlyList<CompactionHold> holds, ulong compactedThrough, out List<(PassedHold Hold, ulong From)> overBound)
    {
        var keepFrom = ulong.MaxValue;
        overBound = [];
        foreach (var hold in holds)
        {
            var position = hold.Position;
            ulong from;
            if (position == ChangePosition.Start || (position.IsSnapshot && position.Sequence == compactedThrough))
            {
                from = 0;
            }
            else if (position.IsSnapshot || position.Sequence <= compactedThrough)
            {
                continue;
            }
            else
            {
                from = position.Sequence;
            }

            if (from >= keepFrom)
            {
                continue;
            }

            var kept = KeptBytes(from);
            if (kept <= hold.MaxBytes)
            {
                keepFrom = from;
            }
            else
            {
                overBound.Add((new PassedHold(hold.Cursor, position, kept, hold.MaxBytes), from));
            }
        }

        return keepFrom;
    }

    /// <summary>The bytes of the shards a hold from <paramref name="from"/> keeps: from the first not wholly before it to the newest.</summary>
    private long KeptBytes(ulong from)
    {
        long bytes = 0;
        for (var i = 0; i < _entry.Shards.Count; i++)
        {
            if (!EndsBefore(i, from))
            {
                var id = _entry.Shards[i];
                bytes += _entry.ShardDetails.GetValueOrDefault(id)?.SealedLength ?? File(id).Length;
            }
        }

        return bytes;
    }

    /// <summary>
    /// Whether every block of the chain's shard at <paramref name="index"/> has a sequence below <paramref name="sequence"/>
    /// (a shard without blocks does). For a shard the manifest holds nothing of (format 1, sealed by a format-1 build), a later shard's
    /// first sequence tells, since sequences grow along the chain; false when none does.
    /// </summary>
    private bool EndsBefore(int index, ulong sequence)
    {
        var details = _entry.ShardDetails.GetValueOrDefault(_entry.Shards[index]);
        if (details is { IsSealed: true })
        {
            return details.LastSequence is not { } sealedLast || sealedLast < sequence;
        }

        if (index == _entry.Shards.Count - 1)
        {
            return _activeLastSequence is not { } last || last < sequence;
        }

        var later = _entry.Shards.Skip(index + 1).Select(id => _entry.ShardDetails.GetValueOrDefault(id)?.FirstSequence).FirstOrDefault(first => first is not null);
        return later <= sequence;
    }

    /// <summary>Counts the small sealed shards of <see cref="_entry"/> (see <see cref="WantsMerge"/>).</summary>
    private void CountSmallSealedShards()
    {
        var small = 0;
        foreach (var details in _entry.ShardDetails.Values)
        {
            if (details.SealedLength < _maxShardBytes / SmallShardFraction)
            {
                small++;
            }
        }

        _smallSealedShards = small;
    }

    /// <summary>The highest last sequence the manifest records of <paramref name="shards"/>, all sealed.</summary>
    private ulong LastSequenceOf(uint[] shards) =>
        shards.Select(id => _entry.ShardDetails.GetValueOrDefault(id)?.LastSequence ?? 0).DefaultIfEmpty().Max();
}
