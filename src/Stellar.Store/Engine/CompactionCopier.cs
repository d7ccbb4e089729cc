using System.Buffers;
using System.Diagnostics;
using System.Runtime.ExceptionServices;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// The background part of a compaction: encodes the records alive at the run's pinned version into new shard files
/// through the shard chain, shard by shard with blocks encoded in parallel. Output blocks reuse sequences 1 to the
/// last one handed out at begin, so they replay before every block written meanwhile, which therefore wins.
/// Deletions need no copy: nothing older than the output is left to delete.
/// </summary>
/// <remarks>Thread safety: off the writer, one run at a time, between the run's begin and finish steps.</remarks>
internal sealed class CompactionCopier<TKey, TValue>
    where TKey : notnull
{
    /// <summary>Output blocks hold about this many raw bytes.</summary>
    public const int BlockBytes = 64 * 1024;

    private readonly string _name;
    private readonly ShardChain _chain;
    private readonly BlockCodec _codec;
    private readonly VersionedMap<TKey, TValue> _map;
    private readonly LargeValueReader<TValue> _values;
    private readonly int _parallelism;
    private readonly long _maxShardBytes;
    private readonly RecordSerializer _serializer;

    public CompactionCopier(string name, ShardChain chain, BlockCodec codec, RecordSerializer serializer, VersionedMap<TKey, TValue> map, LargeValueReader<TValue> values, int parallelism, long maxShardBytes)
    {
        _serializer = serializer;
        _name = name;
        _chain = chain;
        _codec = codec;
        _map = map;
        _values = values;
        _parallelism = parallelism;
        _maxShardBytes = maxShardBytes;
    }

    /// <summary>
    /// Writes the live records of the run's pinned version into its output shards (each written under a temporary
    /// name, flushed, then renamed) and records in the run what moved where. A failure here, a rename's included, is
    /// a clean one whatever reached the disk: no manifest names an output before the swap, and its ids were taken
    /// for this run alone, so <see cref="Abandon"/> may delete it.
    /// </summary>
    public void CopyLive(CompactionRun<TKey, TValue> run, CancellationToken cancellationToken)
    {
        Debug.Assert(run.HasWork && run.Outputs.Count == 0 && run.Moved.Count == 0, "a run is copied once, after a begin that found work");
        var prefix = run.Prefix.ToHashSet();
        var live = new List<(TKey Key, VersionNode<TValue> Node)>();
        foreach (var (key, node) in _map.EnumerateAt(run.PinnedVersion))
        {
            if (prefix.Contains(node.ShardId))
            {
                live.Add((key, node));
            }
        }

        var blocks = PackBlocks(live, run.LastSequence);
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

            run.OutputDetails[shardId] = WriteOutputShard(shardId, live, blocks.GetRange(next, count), sequence, run.Moved, cancellationToken);
            _chain.PublishOutput(shardId);
            run.Outputs.Add(shardId);
            sequence += (ulong)count;
            next += count;
        }

        Debug.Assert(sequence <= run.LastSequence, "output blocks take only sequences handed out before the begin");
    }

    /// <summary>
    /// After a failed or cancelled copy (always before the swap): releases the pin and removes the output this run
    /// wrote under either name, which no manifest can name since the swap was never tried.
    /// </summary>
    public void Abandon(CompactionRun<TKey, TValue> run)
    {
        Debug.Assert(!run.SwapAttempted, "a compaction is abandoned only before its swap");
        _map.Unpin(run.PinnedVersion);
        _chain.DeleteOutputs(run.OutputIds);
    }

    /// <summary>
    /// Groups the live records into blocks of about <see cref="BlockBytes"/>, larger when needed so that there are no
    /// more blocks than sequences below <paramref name="maxBlocks"/> + 1.
    /// </summary>
    private static List<OutputBlock> PackBlocks(List<(TKey Key, VersionNode<TValue> Node)> live, ulong maxBlocks)
    {
        long target = BlockBytes;
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

    /// <summary>
    /// Encodes and writes one output shard (through the chain, flushed, under its temporary name) and adds what it
    /// holds to <paramref name="moved"/>; returns what the manifest will record of it.
    /// </summary>
    private ManifestShard WriteOutputShard(uint shardId, List<(TKey Key, VersionNode<TValue> Node)> live, List<OutputBlock> blocks, ulong firstSequence,
        List<MovedRecord<TKey, TValue>> moved, CancellationToken cancellationToken)
    {
        var salt = _chain.OutputHeader(shardId).Salt;
        var valueOffsets = new int[live.Count];
        var encoded = new (byte[] Bytes, int Length)[blocks.Count];
        try
        {
            // One core fewer than a group's encode may take: the writes go on meanwhile, and their completions need the pool.
            try
            {
                Parallel.For(0, blocks.Count, new ParallelOptions { MaxDegreeOfParallelism = Math.Max(1, _parallelism - 1), CancellationToken = cancellationToken }, b =>
                {
                    encoded[b] = EncodeBlock(shardId, salt, firstSequence + (ulong)b + 1, live, blocks[b], valueOffsets);
                });
            }
            catch (AggregateException e) when (e.InnerExceptions.Count > 0)
            {
                // The caller is promised what failed (a damaged block of a large value, storage failing to read it), with
                // its file and offset, not the parallel loop's wrapper.
                ExceptionDispatchInfo.Throw(e.InnerExceptions.FirstOrDefault(x => x is not OperationCanceledException) ?? e.InnerExceptions[0]);
            }

            var offsets = _chain.WriteOutput(shardId, encoded, cancellationToken, out var sealedLength);
            for (var b = 0; b < blocks.Count; b++)
            {
                for (var i = blocks[b].Start; i < blocks[b].End; i++)
                {
                    var location = live[i].Node.Location is { } old
                        ? new ValueLocation(shardId, offsets[b], encoded[b].Length, valueOffsets[i], old.ValueLength)
                        : null;
                    moved.Add(new MovedRecord<TKey, TValue>(live[i].Key, live[i].Node, shardId, location));
                }
            }

            return new ManifestShard
            {
                Salt = salt,
                FirstSequence = firstSequence + 1,
                SealedLength = sealedLength,
                LastSequence = firstSequence + (ulong)blocks.Count,
            };
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
    }

    /// <summary>Serializes one output block's records as puts and encodes it; notes where each value starts in the payload.</summary>
    private (byte[] Bytes, int Length) EncodeBlock(uint shardId, byte[] salt, ulong sequence, List<(TKey Key, VersionNode<TValue> Node)> live, OutputBlock block,
        int[] valueOffsets)
    {
        var raw = ArrayPool<byte>.Shared.Rent((int)Math.Max(1, block.Bytes));
        var scratch = new ArrayBufferWriter<byte>(256);
        try
        {
            var position = 0;
            var flags = BlockFlags.None;
            for (var i = block.Start; i < block.End; i++)
            {
                scratch.Clear();
                _serializer.Serialize(scratch, live[i].Key);
                var keyLength = scratch.WrittenCount;
                if (live[i].Node.Location is { } location)
                {
                    scratch.Write(_values.ReadRawValue(location).Span);
                }
                else
                {
                    _serializer.Serialize(scratch, live[i].Node.Value!);
                }

                var expiresAt = live[i].Node.ExpiresAt;
                flags |= expiresAt != 0 ? BlockFlags.Expiring : BlockFlags.None;
                if (position + RecordFormat.Length(RecordKind.Put, keyLength, scratch.WrittenCount - keyLength, expiresAt) > raw.Length)
                {
                    throw new InvalidOperationException($"A record of '{_name}' no longer serializes to the size it had when it was written.");
                }

                var written = scratch.WrittenSpan;
                var length = RecordFormat.Write(raw.AsSpan(position), RecordKind.Put, written[..keyLength], written[keyLength..], expiresAt);
                valueOffsets[i] = position + length - (written.Length - keyLength);
                position += length;
            }

            var bytes = _codec.Encode(_chain.CollectionId, shardId, salt, sequence, (uint)(block.End - block.Start), flags, raw.AsSpan(0, position), out var encodedLength);
            return (bytes, encodedLength);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(raw);
        }
    }

    /// <summary>Records <see cref="Start"/> to <see cref="End"/> of the live list, <see cref="Bytes"/> raw bytes, as one output block.</summary>
    private readonly record struct OutputBlock(int Start, int End, long Bytes)
    {
        /// <summary>What the block can take in its shard once encoded.</summary>
        public long Bound => BlockLimit.MaxEncodedLength(Bytes);
    }
}
