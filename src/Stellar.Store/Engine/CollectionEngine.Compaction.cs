using System.Buffers;
using System.Diagnostics;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// Compaction: copies the live records of every shard written so far into new shards, then swaps them in with one
/// manifest replace. It runs in three steps so that writers and readers keep going: the writer seals the active
/// shard and pins the current version (<see cref="BeginCompaction"/>), a background task encodes the records
/// alive at that version into new shard files and flushes them (<see cref="CopyLive"/>), and the writer swaps the
/// output in and deletes the old files (<see cref="FinishCompaction"/>). Output blocks reuse sequences 1 to the
/// last one handed out at begin, so they replay before every block written meanwhile, which therefore wins.
/// Deletions need no copy: nothing older than the output is left to delete.
/// </summary>
internal sealed partial class CollectionEngine<TKey, TValue>
{
    private const int CompactionBlockBytes = 64 * 1024;

    private readonly Dictionary<uint, ShardUsage> _usage = new();
    private readonly List<CompactionStep> _steps = new();
    private readonly List<(long PinnedVersion, uint[] Shards)> _retired = new();
    private long _storedBytes;
    private long _liveBytes;
    private long _autoCompactionFloor;
    private long _compactions;

    /// <summary>Raised on the writer after a commit when dead records pass the threshold; the handler must not block.</summary>
    public Action? CompactionWanted { get; set; }

    /// <summary>Raw bytes of every record in the shards, live or dead.</summary>
    public long StoredBytes => Volatile.Read(ref _storedBytes);

    /// <summary>Raw bytes of the records readers can see.</summary>
    public long LiveBytes => Volatile.Read(ref _liveBytes);

    /// <summary>Compactions completed since open.</summary>
    public long Compactions => Volatile.Read(ref _compactions);

    /// <summary>Holds automatic compaction back until this many more dead bytes gather (after a failed run).</summary>
    public void DeferAutoCompaction() => Volatile.Write(ref _autoCompactionFloor, StoredBytes - LiveBytes + AutoCompactionDeadBytes);

    /// <summary>
    /// Off the writer, between begin and finish: encodes the records alive at the pinned version into new shard
    /// files (written under a temporary name, flushed, then renamed), shard by shard with blocks encoded in parallel.
    /// A failure here, a rename's included, is a clean one whatever reached the disk: no manifest names an output
    /// before the swap, and its ids were taken for this run alone, so <see cref="AbandonCompaction"/> may delete it.
    /// </summary>
    public void CopyLive(CompactionRun run, CancellationToken cancellationToken)
    {
        var prefix = run.Prefix.ToHashSet();
        var live = new List<(TKey Key, VersionNode<TValue> Node)>();
        foreach (var (key, node) in Map.EnumerateAt(run.PinnedVersion))
        {
            if (prefix.Contains(node.ShardId))
            {
                live.Add((key, node));
            }
        }

        var blocks = PackBlocks(live, run.LastSequence);
        var locations = new ValueLocation?[live.Count];
        var valueOffsets = new int[live.Count];
        var moved = new List<Moved>(live.Count);
        var next = 0;
        ulong sequence = 0;
        while (next < blocks.Count)
        {
            if (run.Outputs.Count == run.OutputIds.Length)
            {
                throw new InvalidOperationException("Compaction needs more output shards than it reserved.");
            }

            var shardId = run.OutputIds[run.Outputs.Count];
            var count = 0;
            long bound = ShardHeader.Size;
            while (next + count < blocks.Count && (count == 0 || bound + blocks[next + count].Bound <= _maxShardBytes))
            {
                bound += blocks[next + count].Bound;
                count++;
            }

            var shardBlocks = blocks.GetRange(next, count);
            run.OutputDetails[shardId] = WriteOutputShard(shardId, live, shardBlocks, sequence, valueOffsets, locations, cancellationToken);
            var name = StoreFileNames.Shard(_chain.CollectionId, shardId);
            _chain.Storage.Rename(StoreFileNames.Compacting(_chain.CollectionId, shardId), name);

            foreach (var block in shardBlocks)
            {
                for (var i = block.Start; i < block.End; i++)
                {
                    moved.Add(new Moved(live[i].Key, live[i].Node, shardId, locations[i]));
                }
            }

            run.Outputs.Add(shardId);
            sequence += (ulong)count;
            next += count;
        }

        run.Moved = moved;
    }

    /// <summary>
    /// Off the writer, after a failed or cancelled copy (always before the swap): releases the pin and removes the
    /// output this run wrote under either name, which no manifest can name since the swap was never tried.
    /// </summary>
    public void AbandonCompaction(CompactionRun run)
    {
        Debug.Assert(!run.SwapAttempted, "a compaction is abandoned only before its swap");
        Map.Unpin(run.PinnedVersion);
        foreach (var shardId in run.OutputIds)
        {
            var name = StoreFileNames.Shard(_chain.CollectionId, shardId);
            _chain.Storage.Delete(StoreFileNames.Compacting(_chain.CollectionId, shardId));
            _chain.Storage.Delete(name);
        }
    }

    /// <inheritdoc />
    public void DeleteAllRetired()
    {
        foreach (var (_, shards) in _retired)
        {
            _chain.DeleteRetired(shards);
        }

        _retired.Clear();
    }

    private long AutoCompactionDeadBytes => Math.Max(_maxShardBytes / 16, CompactionBlockBytes);

    /// <summary>
    /// Writer only: deletes the files of compacted shards once no snapshot older than the compaction's pin is left,
    /// since only such a snapshot can still read a large value that was not copied (it was dead at the pin).
    /// </summary>
    private void DeleteRetiredShards()
    {
        for (var i = _retired.Count - 1; i >= 0; i--)
        {
            if (!Map.IsPinnedBelow(_retired[i].PinnedVersion))
            {
                _chain.DeleteRetired(_retired[i].Shards);
                _retired.RemoveAt(i);
            }
        }
    }

    private void RunSteps()
    {
        if (_retired.Count > 0)
        {
            DeleteRetiredShards();
        }

        foreach (var step in _steps)
        {
            if (step.Begin)
            {
                BeginCompaction(step.Run);
            }
            else
            {
                FinishCompaction(step.Run);
            }
        }

        _steps.Clear();
    }

    private void BeginCompaction(CompactionRun run)
    {
        // Bounds for the reservation: blocks carry at most a header, a tag and LZ4's worst-case growth each.
        var live = _liveBytes;
        var maxBlocks = (2 * live / CompactionBlockBytes) + 1;
        var bound = live + (live / 200) + (maxBlocks * (BlockHeader.Size + 80));
        var outputShards = (int)Math.Min(2 * bound / _maxShardBytes, int.MaxValue - 2) + 2;

        // A failure here propagates and faults the collection: the buffered bytes drained here were acknowledged
        // (Buffered mode), and the manifest replace that reserves the ids has an unknown outcome when it throws.
        var (prefix, outputIds) = _chain.BeginCompaction(outputShards, out var lastSequence);
        run.Prefix = prefix;
        run.OutputIds = outputIds;
        run.LastSequence = lastSequence;

        if (run.HasWork)
        {
            run.PinnedVersion = Map.Pin().Version;
        }
    }

    private void FinishCompaction(CompactionRun run)
    {
        run.SwapAttempted = true;
        try
        {
            _chain.CompleteCompaction(run.Prefix, run.Outputs, run.OutputDetails);
        }
        catch
        {
            // The swap may be on disk: keep both file sets (nothing is retired, nothing deleted) and let the failure
            // fault the collection. Readers still find every value in the old files, which stay open.
            Map.Unpin(run.PinnedVersion);
            throw;
        }

        long stored = _storedBytes, live = _liveBytes;
        foreach (var shardId in run.Prefix)
        {
            if (_usage.Remove(shardId, out var usage))
            {
                stored -= usage.Total;
                live -= usage.Live;
            }
        }

        // Records overwritten or deleted since the pin were copied too, but are dead on arrival.
        foreach (var (key, node, shardId, location) in (List<Moved>)run.Moved!)
        {
            node.ShardId = shardId;
            if (location is not null)
            {
                node.Location = location;
            }

            var usage = Usage(shardId);
            usage.Total += node.Size;
            stored += node.Size;
            if (ReferenceEquals(Map.Head(key), node))
            {
                usage.Live += node.Size;
                live += node.Size;
            }
        }

        Volatile.Write(ref _storedBytes, stored);
        Volatile.Write(ref _liveBytes, live);
        Map.Unpin(run.PinnedVersion);
        _retired.Add((run.PinnedVersion, run.Prefix));
        DeleteRetiredShards();
        Interlocked.Increment(ref _compactions);
    }

    /// <summary>Writer only: counts a record written to <paramref name="shardId"/>, and the one it replaced.</summary>
    private void Account(uint shardId, int size, bool deleted, VersionNode<TValue>? replaced)
    {
        Usage(shardId).Total += size;
        var stored = _storedBytes + size;
        var live = _liveBytes;
        if (replaced is { Deleted: false } && _usage.TryGetValue(replaced.ShardId, out var old))
        {
            old.Live -= replaced.Size;
            live -= replaced.Size;
        }

        if (!deleted)
        {
            Usage(shardId).Live += size;
            live += size;
        }

        Volatile.Write(ref _storedBytes, stored);
        Volatile.Write(ref _liveBytes, live);
    }

    private void CheckCompactionWanted()
    {
        var dead = _storedBytes - _liveBytes;
        if (_compactionThreshold > 0
            && dead >= AutoCompactionDeadBytes
            && dead >= Volatile.Read(ref _autoCompactionFloor)
            && _liveBytes < _compactionThreshold * _storedBytes)
        {
            CompactionWanted?.Invoke();
        }
    }

    private ShardUsage Usage(uint shardId)
    {
        if (!_usage.TryGetValue(shardId, out var usage))
        {
            usage = new ShardUsage();
            _usage[shardId] = usage;
        }

        return usage;
    }

    /// <summary>
    /// Groups the live records into blocks of about 64 KiB, larger when needed so that there are no more blocks than
    /// sequences below <paramref name="maxBlocks"/> + 1.
    /// </summary>
    private static List<OutputBlock> PackBlocks(List<(TKey Key, VersionNode<TValue> Node)> live, ulong maxBlocks)
    {
        long target = CompactionBlockBytes;
        while (true)
        {
            var blocks = new List<OutputBlock>();
            var start = 0;
            long bytes = 0;
            for (var i = 0; i < live.Count; i++)
            {
                var size = live[i].Node.Size;
                if (i > start && bytes + size > target)
                {
                    blocks.Add(new OutputBlock(start, i, bytes));
                    start = i;
                    bytes = 0;
                }

                bytes += size;
            }

            if (live.Count > start)
            {
                blocks.Add(new OutputBlock(start, live.Count, bytes));
            }

            if ((ulong)blocks.Count <= maxBlocks)
            {
                return blocks;
            }

            target *= 2;
        }
    }

    /// <summary>Writes one output shard (header, then blocks), flushes and renames it; returns what the manifest will record of it.</summary>
    private ManifestShard WriteOutputShard(uint shardId, List<(TKey Key, VersionNode<TValue> Node)> live, List<OutputBlock> blocks, ulong firstSequence,
        int[] valueOffsets, ValueLocation?[] locations, CancellationToken cancellationToken)
    {
        var shardHeader = _chain.OutputHeader(shardId);
        long sealedLength;
        var encoded = new (byte[] Bytes, int Length)[blocks.Count];
        try
        {
            Parallel.For(0, blocks.Count, new ParallelOptions { MaxDegreeOfParallelism = _parallelism, CancellationToken = cancellationToken }, b =>
            {
                var block = blocks[b];
                var raw = ArrayPool<byte>.Shared.Rent((int)Math.Max(1, block.Bytes));
                var scratch = new ArrayBufferWriter<byte>(256);
                try
                {
                    var position = 0;
                    for (var i = block.Start; i < block.End; i++)
                    {
                        scratch.Clear();
                        RecordSerializer<TKey>.Serialize(scratch, live[i].Key);
                        var keyLength = scratch.WrittenCount;
                        if (live[i].Node.Location is { } location)
                        {
                            scratch.Write(ReadRawValue(location).Span);
                        }
                        else
                        {
                            RecordSerializer<TValue>.Serialize(scratch, live[i].Node.Value!);
                        }

                        if (position + RecordFormat.PutOverhead + scratch.WrittenCount > raw.Length)
                        {
                            throw new InvalidOperationException($"A record of '{_name}' no longer serializes to the size it had when it was written.");
                        }

                        var written = scratch.WrittenSpan;
                        valueOffsets[i] = position + RecordFormat.PutOverhead + keyLength;
                        position += RecordFormat.Write(raw.AsSpan(position), RecordKind.Put, written[..keyLength], written[keyLength..]);
                    }

                    var bytes = _codec.Encode(_chain.CollectionId, shardId, shardHeader.Salt, firstSequence + (ulong)b + 1, (uint)(block.End - block.Start),
                        BlockFlags.None, raw.AsSpan(0, position), out var length);
                    encoded[b] = (bytes, length);
                }
                finally
                {
                    ArrayPool<byte>.Shared.Return(raw);
                }
            });

            var temp = StoreFileNames.Compacting(_chain.CollectionId, shardId);
            _chain.Storage.Delete(temp);
            using (var file = _chain.Storage.Open(temp))
            {
                file.Append(shardHeader.ToArray());
                for (var b = 0; b < blocks.Count; b++)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    var offset = file.Length;
                    file.Append(encoded[b].Bytes.AsSpan(0, encoded[b].Length));
                    for (var i = blocks[b].Start; i < blocks[b].End; i++)
                    {
                        if (live[i].Node.Location is { } old)
                        {
                            locations[i] = new ValueLocation(shardId, offset, encoded[b].Length, valueOffsets[i], old.ValueLength);
                        }
                    }
                }

                file.FlushToDisk();
                sealedLength = file.Length;
            }
        }
        finally
        {
            foreach (var (bytes, _) in encoded)
            {
                if (bytes is not null)
                {
                    ArrayPool<byte>.Shared.Return(bytes);
                }
            }
        }

        return new ManifestShard
        {
            Salt = shardHeader.Salt,
            FirstSequence = firstSequence + 1,
            SealedLength = sealedLength,
            LastSequence = firstSequence + (ulong)blocks.Count,
        };
    }

    /// <summary>Raw record bytes per shard: all records, and those readers can still see.</summary>
    private sealed class ShardUsage
    {
        public long Total { get; set; }

        public long Live { get; set; }
    }

    private readonly record struct Moved(TKey Key, VersionNode<TValue> Node, uint ShardId, ValueLocation? Location);

    private readonly record struct OutputBlock(int Start, int End, long Bytes)
    {
        public long Bound => BlockHeader.Size + Bytes + (Bytes / 200) + 80;
    }
}
