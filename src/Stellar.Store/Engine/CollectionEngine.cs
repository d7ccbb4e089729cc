using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using Stellar.Store.Actors;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// The engine of one collection, driven by its writer actor through <see cref="ICommitSink"/>: it checks
/// preconditions against its own state, packs a group into blocks, encodes them in parallel, appends them in
/// sequence order, flushes per the durability mode, then publishes the group to readers with one volatile write.
/// Loading at open lives in <c>CollectionEngine.Load.cs</c>.
/// </summary>
/// <remarks>Thread safety: single-writer by contract (the actor never overlaps two calls); readers use
/// <see cref="Map"/>, which is lock-free. The engine only borrows a write's record buffer, until the write's outcome
/// is reported; it never returns one to the pool (see <see cref="SingleWrite{TKey,TValue}"/>).</remarks>
internal sealed partial class CollectionEngine<TKey, TValue> : ICommitSink, ICompactionTarget
    where TKey : notnull
{
    /// <summary>Single writes are packed into blocks up to this many raw bytes.</summary>
    private const int TargetBlockBytes = 64 * 1024;

    private readonly string _name;
    private readonly ShardChain _chain;
    private readonly BlockCodec _codec;
    private readonly int _parallelism;
    private readonly long _maxShardBytes;
    private readonly double _compactionThreshold;
    private readonly int _largeValueBytes;
    private readonly int _maxBlockBytes;
    private readonly Dictionary<TKey, bool> _overlay = new();
    private readonly Dictionary<TKey, bool> _batchOverlay = new();
    private readonly List<StagedBlock> _staged = new();
    private long _stagedCount;
    private long _version;

    public CollectionEngine(string name, ShardChain chain, BlockCodec codec, int parallelism, long maxShardBytes, double compactionThreshold, int largeValueBytes)
    {
        _largeValueBytes = largeValueBytes;
        _name = name;
        _chain = chain;
        _codec = codec;
        _parallelism = parallelism;
        _maxShardBytes = maxShardBytes;
        _compactionThreshold = compactionThreshold;
        _maxBlockBytes = codec.MaxRawLength;
        Debug.Assert(
            Collection<TKey, TValue>.MaxKeyBytes + Collection<TKey, TValue>.MaxValueBytes + RecordFormat.PutOverhead <= _maxBlockBytes,
            "a single record of the largest accepted key and value must fit one block");
    }

    public VersionedMap<TKey, TValue> Map { get; } = new();

    /// <summary>The most record bytes one block, so one atomic batch, may hold (see <see cref="BlockLimit"/>).</summary>
    public int MaxBlockBytes => _maxBlockBytes;

    public Exception? Stage(object write, out object? result)
    {
        result = null;
        switch (write)
        {
            case SingleWrite<TKey, TValue> single:
            {
                var rejection = Check(single, _overlay, out var exists);
                if (rejection is not null)
                {
                    return rejection;
                }

                if (single.Kind == WriteKind.Delete)
                {
                    result = exists;
                    if (!exists)
                    {
                        // Deleting a missing key changes nothing, so it costs nothing.
                        return null;
                    }
                }

                ApplyToOverlay(single, _overlay);
                OpenBlock(single.Length, mustFit: false).Add(single, _largeValueBytes);
                return null;
            }

            case BatchWrite<TKey, TValue> batch:
                return StageBatch(batch);

            case CompactionStep step:
                _steps.Add(step);
                return null;

            case ReleaseStep:
                // Nothing to store: the commit's publish cuts what released snapshots held, its steps delete files.
                return null;

            default:
                throw new ArgumentException($"Unknown write {write.GetType()}", nameof(write));
        }
    }

    public Task CommitAsync() => Task.Run(Commit);

    public void Discard()
    {
        _staged.Clear();
        _steps.Clear();
        _overlay.Clear();
        _stagedCount = Map.Published.Count;
    }

    public Task FlushAsync() => Task.Run(_chain.Flush);

    public Exception Fault(Exception cause) => cause is StoreFaultedException faulted
        ? faulted
        : new StoreFaultedException(
            $"Collection '{_name}' is faulted: a write failed in storage ({cause.Message}). Writes that were not acknowledged may or may not be on disk; reopen the store to recover every acknowledged write.",
            cause);

    private Exception? StageBatch(BatchWrite<TKey, TValue> batch)
    {
        // A batch is one block: one the reader would refuse must be rejected here, before anything is written.
        // The collection checks atomic batches before submitting them and sizes import chunks well under this.
        if (batch.Bytes > _maxBlockBytes)
        {
            return TooLargeForOneBlock(batch.Bytes, _maxBlockBytes, "write");
        }

        _batchOverlay.Clear();
        var kept = new List<SingleWrite<TKey, TValue>>(batch.Writes.Count);
        foreach (var write in batch.Writes)
        {
            var rejection = batch.Atomic ? CheckLayered(write, out var exists) : null;
            if (rejection is not null)
            {
                return rejection;
            }

            if (write.Kind == WriteKind.Delete && !Exists(write.Key, _batchOverlay, _overlay))
            {
                continue;
            }

            ApplyToOverlay(write, _batchOverlay);
            kept.Add(write);
        }

        foreach (var (key, exists) in _batchOverlay)
        {
            var before = Exists(key, _overlay);
            _overlay[key] = exists;
            _stagedCount += (exists ? 1 : 0) - (before ? 1 : 0);
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

    /// <summary>The rejection of a batch whose records cannot be stored as one readable block.</summary>
    internal static ArgumentException TooLargeForOneBlock(long bytes, int maxBlockBytes, string paramName) => new(
        $"The batch's records take {bytes} bytes; an atomic batch is stored as one block, which holds at most {maxBlockBytes} bytes. Nothing was stored: split the batch.",
        paramName);

    private Exception? CheckLayered(SingleWrite<TKey, TValue> write, out bool exists)
    {
        exists = Exists(write.Key, _batchOverlay, _overlay);
        return Reject(write, exists);
    }

    private Exception? Check(SingleWrite<TKey, TValue> write, Dictionary<TKey, bool> overlay, out bool exists)
    {
        exists = Exists(write.Key, overlay);
        return Reject(write, exists);
    }

    private Exception? Reject(SingleWrite<TKey, TValue> write, bool exists) => write.Kind switch
    {
        WriteKind.Insert when exists => new DuplicateKeyException(_name, write.Key),
        WriteKind.Update when !exists => new KeyNotFoundException($"Collection '{_name}' holds no key '{write.Key}' to update."),
        _ => null,
    };

    private bool Exists(TKey key, Dictionary<TKey, bool> overlay) =>
        overlay.TryGetValue(key, out var exists) ? exists : Map.TryGetLatest(key, out _);

    private bool Exists(TKey key, Dictionary<TKey, bool> inner, Dictionary<TKey, bool> outer) =>
        inner.TryGetValue(key, out var exists) ? exists : Exists(key, outer);

    private void ApplyToOverlay(SingleWrite<TKey, TValue> write, Dictionary<TKey, bool> overlay)
    {
        var exists = write.Kind != WriteKind.Delete;
        if (ReferenceEquals(overlay, _overlay))
        {
            var before = Exists(write.Key, _overlay);
            _stagedCount += (exists ? 1 : 0) - (before ? 1 : 0);
        }

        overlay[write.Key] = exists;
    }

    private StagedBlock OpenBlock(long bytes, bool mustFit)
    {
        Debug.Assert(bytes <= _maxBlockBytes, "single records are bounded by the key and value limits, batches by StageBatch");
        if (_staged.Count > 0)
        {
            var last = _staged[^1];
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

    private StagedBlock NewBlock()
    {
        if (_staged.Count > 0)
        {
            _staged[^1].Sealed = true;
        }

        var block = new StagedBlock();
        _staged.Add(block);
        return block;
    }

    private void Commit()
    {
        var blocks = _staged;

        // Staging bounds every block; were one ever larger, refusing it here writes nothing, where writing it would
        // acknowledge records the reader cannot read back.
        foreach (var block in blocks)
        {
            if (block.Bytes > _maxBlockBytes)
            {
                throw new InvalidOperationException($"A staged block of {block.Bytes} bytes exceeds the block limit of {_maxBlockBytes} bytes; nothing was written.");
            }
        }

        RunSteps();
        var encoded = new (byte[] Bytes, int Length, uint ShardId)[blocks.Count];
        try
        {
            var reserved = new (uint ShardId, ulong Sequence)[blocks.Count];
            for (var i = 0; i < blocks.Count; i++)
            {
                reserved[i] = _chain.Reserve(MaxEncodedLength(blocks[i].Bytes));
            }

            void Encode(int i)
            {
                var raw = blocks[i].Concatenate();
                try
                {
                    var bytes = _codec.Encode(_chain.CollectionId, reserved[i].ShardId, _chain.SaltOf(reserved[i].ShardId), reserved[i].Sequence,
                        (uint)blocks[i].Writes.Count, BlockFlags.None, raw.AsSpan(0, checked((int)blocks[i].Bytes)), out var length);
                    encoded[i] = (bytes, length, reserved[i].ShardId);
                }
                finally
                {
                    ArrayPool<byte>.Shared.Return(raw);
                }
            }

            if (blocks.Count == 1 || _parallelism == 1)
            {
                for (var i = 0; i < blocks.Count; i++)
                {
                    Encode(i);
                }
            }
            else
            {
                Parallel.For(0, blocks.Count, new ParallelOptions { MaxDegreeOfParallelism = _parallelism }, Encode);
            }

            var offsets = new long[blocks.Count];
            for (var i = 0; i < blocks.Count; i++)
            {
                var (bytes, length, shardId) = encoded[i];
                offsets[i] = _chain.Append(shardId, reserved[i].Sequence, bytes.AsSpan(0, length), readable: blocks[i].HoldsLargeValue);
            }

            _chain.EndGroup();
            Publish(blocks, reserved, offsets, encoded);
            CheckCompactionWanted();
        }
        finally
        {
            foreach (var (bytes, _, _) in encoded)
            {
                if (bytes is not null)
                {
                    ArrayPool<byte>.Shared.Return(bytes);
                }
            }
        }
    }

    private void Publish(List<StagedBlock> blocks, (uint ShardId, ulong Sequence)[] reserved, long[] offsets, (byte[] Bytes, int Length, uint ShardId)[] encoded)
    {
        var version = ++_version;
        for (var i = 0; i < blocks.Count; i++)
        {
            var shardId = reserved[i].ShardId;
            var position = 0;
            foreach (var write in blocks[i].Writes)
            {
                var deleted = write.Kind == WriteKind.Delete;
                var value = write.Value;
                ValueLocation? location = null;
                if (!deleted && ValueLength(write) is var length && length > _largeValueBytes)
                {
                    // Large values stay on disk: the snapshot keeps where they are, not what they are.
                    location = new ValueLocation(shardId, offsets[i], encoded[i].Length, position + write.Length - length, length);
                    value = default;
                }

                var replaced = Map.Apply(write.Key, version, value, deleted, shardId, write.Length, location);
                Account(shardId, write.Length, deleted, replaced);
                position += write.Length;
            }
        }

        Map.Publish(version, _stagedCount);
        blocks.Clear();
        _overlay.Clear();
    }

    /// <summary>
    /// A bound on the encoded length of a block of <paramref name="rawBytes"/> record bytes, for shard planning:
    /// the header, the raw bytes with room for compression that does not pay, and the cipher's tag.
    /// </summary>
    private int MaxEncodedLength(long rawBytes)
    {
        Debug.Assert(rawBytes <= _maxBlockBytes, "checked when the block was committed");
        return checked(BlockHeader.Size + (int)rawBytes + (int)(rawBytes / 200) + 64);
    }

    private static int ValueLength(SingleWrite<TKey, TValue> write) =>
        write.Length - RecordFormat.PutOverhead - BinaryPrimitives.ReadInt32LittleEndian(write.Record.AsSpan(1));

    /// <summary>The writes bound for one block.</summary>
    private sealed class StagedBlock
    {
        public List<SingleWrite<TKey, TValue>> Writes { get; } = new();

        public long Bytes { get; private set; }

        /// <summary>No further writes join a sealed block (it holds an atomic batch too large to share).</summary>
        public bool Sealed { get; set; }

        /// <summary>Whether a value in it is kept out of memory, so readers will read the block from the file.</summary>
        public bool HoldsLargeValue { get; private set; }

        public void Add(SingleWrite<TKey, TValue> write, int largeValueBytes)
        {
            Writes.Add(write);
            Bytes += write.Length;
            HoldsLargeValue |= write.Kind != WriteKind.Delete && ValueLength(write) > largeValueBytes;
        }

        public byte[] Concatenate()
        {
            var raw = ArrayPool<byte>.Shared.Rent(checked((int)Math.Max(1, Bytes)));
            var position = 0;
            foreach (var write in Writes)
            {
                write.Record.AsSpan(0, write.Length).CopyTo(raw.AsSpan(position));
                position += write.Length;
            }

            return raw;
        }
    }
}
