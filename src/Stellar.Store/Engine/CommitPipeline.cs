using System.Buffers;
using System.Diagnostics;
using Stellar.Store.Actors;
using Stellar.Store.Feed;
using Stellar.Store.Format;
using Stellar.Store.Indexes;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// Writes a staged commit group: reserves shard space for each block, encodes the blocks in parallel, appends them
/// in sequence order, ends the group (flushing per the durability mode), then applies the writes to the versioned
/// map and publishes them to readers as one version.
/// </summary>
/// <remarks>Thread safety: writer only; readers see the group only through the map's publish.</remarks>
internal sealed class CommitPipeline<TKey, TValue>
    where TKey : notnull
{
    private readonly ShardChain _chain;
    private readonly BlockCodec _codec;
    private readonly VersionedMap<TKey, TValue> _map;
    private readonly ShardUsageLedger _ledger;
    private readonly IndexSet<TKey, TValue> _indexes;
    private readonly int _parallelism;
    private readonly int _maxBlockBytes;
    private readonly int _largeValueBytes;

    /// <summary>The version last published, or staged for a round's part that waits for its decision.</summary>
    private long _version;

    /// <summary>A committed round's part waiting for the decision: its version and the key counts before and with it.</summary>
    private (long Version, long CountBefore, long Count)? _part;

    /// <summary>The feeds' committed end once the part waiting for its decision is published.</summary>
    private FeedTail? _partTail;

    public CommitPipeline(ShardChain chain, BlockCodec codec, VersionedMap<TKey, TValue> map, ShardUsageLedger ledger, IndexSet<TKey, TValue> indexes, int parallelism, int largeValueBytes, ChangeFeedTail tail)
    {
        Tail = tail;
        _indexes = indexes;
        _chain = chain;
        _codec = codec;
        _map = map;
        _ledger = ledger;
        _parallelism = parallelism;
        _maxBlockBytes = codec.MaxRawLength;
        _largeValueBytes = largeValueBytes;
    }

    /// <summary>The end of the committed blocks that change feeds read up to, moved after every publish.</summary>
    public ChangeFeedTail Tail { get; }

    /// <summary>After load: the next group publishes the version after <paramref name="version"/>.</summary>
    public void Loaded(long version) => _version = version;

    /// <summary>
    /// Refuses a group with a block past the block limit before anything is written. Staging bounds every block;
    /// were one ever larger, refusing it here writes nothing, where writing it would acknowledge records the reader
    /// cannot read back.
    /// </summary>
    public void Check(IReadOnlyList<StagedBlock<TKey, TValue>> blocks)
    {
        // Indexed, not foreach: a foreach over the interface would box an enumerator on every commit.
        for (var i = 0; i < blocks.Count; i++)
        {
            if (blocks[i].Bytes > _maxBlockBytes)
            {
                throw new InvalidOperationException($"A staged block of {blocks[i].Bytes} bytes exceeds the block limit of {_maxBlockBytes} bytes; nothing was written.");
            }
        }
    }

    /// <summary>
    /// Writes <paramref name="blocks"/> and publishes them, with the collection then holding <paramref name="count"/>
    /// keys; when the last blocks are a round's part (<see cref="StagedBlock{TKey,TValue}.Tag"/>), the blocks before
    /// them are published with <paramref name="countBeforePart"/> keys, and the part waits, staged at the next version,
    /// for <see cref="PublishPart"/>. <paramref name="hasPart"/> says the group ends with a part, which may store no
    /// record at all (only deletes of missing keys): it still waits for its decision, at a version of its own; and
    /// <paramref name="partPlaced"/> learns where the part's blocks went once they reached the OS, before the group is
    /// made durable.
    /// </summary>
    public void Commit(IReadOnlyList<StagedBlock<TKey, TValue>> blocks, long count, long countBeforePart, bool hasPart, Action<IReadOnlyList<PartBlock>>? partPlaced)
    {
        Debug.Assert(_part is null, "a part waiting for its decision holds the writer");
        Debug.Assert(hasPart == partPlaced is not null, "a group that ends with a part says where it went, and only such a group");
        var started = _chain.Diagnostics.CommitStarting();
        var encoded = new (byte[] Bytes, int Length)[blocks.Count];
        try
        {
            var reserved = new (uint ShardId, ulong Sequence)[blocks.Count];
            for (var i = 0; i < blocks.Count; i++)
            {
                Debug.Assert(blocks[i].Bytes <= _maxBlockBytes, "checked before the group's steps ran");
                reserved[i] = _chain.Reserve(checked((int)BlockLimit.MaxEncodedLength(blocks[i].Bytes)));
            }

            void Encode(int i)
            {
                var raw = blocks[i].Concatenate();
                try
                {
                    var bytes = _codec.Encode(_chain.CollectionId, reserved[i].ShardId, _chain.SaltOf(reserved[i].ShardId), reserved[i].Sequence,
                        (uint)blocks[i].Writes.Count, blocks[i].Flags, raw.AsSpan(0, checked((int)blocks[i].Bytes)), out var length);
                    Debug.Assert(length <= BlockLimit.MaxEncodedLength(blocks[i].Bytes), "the shard space reserved for the block holds it");
                    encoded[i] = (bytes, length);
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
                SharedLoop.For(blocks.Count, _parallelism, Encode);
            }

            var offsets = new long[blocks.Count];
            for (var i = 0; i < blocks.Count; i++)
            {
                var (bytes, length) = encoded[i];
                // A part reaches the OS at once even in Buffered mode: its decision, in another file, must never be
                // written before it.
                var readable = blocks[i].HoldsLargeValue || blocks[i].Tag is not null;
                offsets[i] = _chain.Append(reserved[i].ShardId, reserved[i].Sequence, bytes.AsSpan(0, length), readable);
            }

            if (partPlaced is not null)
            {
                partPlaced(PartBlocks(blocks, reserved, offsets));
            }

            if (Tail.HasReaders)
            {
                // Buffered mode: a feed reads the files, so what it will be told is committed goes to the OS now.
                _chain.HandToOs();
            }

            _chain.EndGroup();
            Publish(blocks, reserved, offsets, encoded, count, countBeforePart, hasPart);
            AdvanceTail(blocks, reserved, offsets, encoded);
            _chain.Diagnostics.Committed(started);
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

    /// <summary>Publishes the round's part committed last, once its decision is durable (see <see cref="VersionedMap{TKey,TValue}.PublishPart"/>).</summary>
    public void PublishPart(long round)
    {
        Debug.Assert(_part is not null, "a part was committed");
        var (version, countBefore, count) = _part.Value;
        _map.PublishPart(version, count, round, countBefore);
        if (_partTail is not null)
        {
            Tail.Advance(_partTail);
            _partTail = null;
        }
    }

    /// <summary>After the round is visible in every collection: publishes again, which forgets what the part's publish kept.</summary>
    public void EndPart()
    {
        Debug.Assert(_part is not null, "a part was published");
        _map.Publish(_version, _part.Value.Count);
        _part = null;
    }

    /// <summary>
    /// Moves the feeds' committed end past the blocks just published; a round's part (the tagged blocks, last) only
    /// once its decision publishes it, so no feed ever reads a part whose round might not commit.
    /// </summary>
    private void AdvanceTail(IReadOnlyList<StagedBlock<TKey, TValue>> blocks, (uint ShardId, ulong Sequence)[] reserved, long[] offsets, (byte[] Bytes, int Length)[] encoded)
    {
        var published = blocks.Count;
        while (published > 0 && blocks[published - 1].Tag is not null)
        {
            published--;
        }

        if (published > 0)
        {
            var last = published - 1;
            Tail.Advance(new FeedTail(reserved[last].Sequence + 1, reserved[last].ShardId, offsets[last] + encoded[last].Length));
        }

        if (published < blocks.Count)
        {
            var last = blocks.Count - 1;
            _partTail = new FeedTail(reserved[last].Sequence + 1, reserved[last].ShardId, offsets[last] + encoded[last].Length);
        }
    }

    /// <summary>Where the part's blocks (the tagged ones, last in the group) went.</summary>
    private PartBlock[] PartBlocks(IReadOnlyList<StagedBlock<TKey, TValue>> blocks, (uint ShardId, ulong Sequence)[] reserved, long[] offsets)
    {
        var part = new List<PartBlock>(1);
        for (var i = 0; i < blocks.Count; i++)
        {
            if (blocks[i].Tag is not null)
            {
                part.Add(new PartBlock(_chain.CollectionId, reserved[i].ShardId, offsets[i]));
            }
        }

        return part.ToArray();
    }

    private void Publish(IReadOnlyList<StagedBlock<TKey, TValue>> blocks, (uint ShardId, ulong Sequence)[] reserved, long[] offsets, (byte[] Bytes, int Length)[] encoded, long count, long countBeforePart, bool hasPart)
    {
        var version = ++_version;
        for (var i = 0; i < blocks.Count; i++)
        {
            if (blocks[i].Tag is not null && _part is null)
            {
                // The part's blocks come last: what came before is published now, the part staged above it.
                _map.Publish(version, countBeforePart);
                version = ++_version;
                _part = (version, countBeforePart, count);
            }

            var shardId = reserved[i].ShardId;
            var position = blocks[i].RecordsOffset;
            foreach (var write in blocks[i].Writes)
            {
                var deleted = write.Kind == WriteKind.Delete;
                var value = write.Value;
                ValueLocation? location = null;
                if (!deleted && write.ValueLength > _largeValueBytes)
                {
                    // Large values stay on disk: the snapshot keeps where they are, not what they are.
                    location = new ValueLocation(shardId, offsets[i], encoded[i].Length, position + write.Length - write.ValueLength, write.ValueLength);
                    value = default;
                }

                var replaced = _map.Apply(write.Key, version, value, deleted, shardId, write.Length, location, write.ExpiresAt);
                if (_indexes.Any)
                {
                    // The value as written, also when the map keeps only where it is on disk.
                    _indexes.Applied(write.Key, deleted, write.Value, version, deleted ? null : _map.LastApplied);
                }

                _ledger.Account(shardId, write.Length, deleted, replaced);
                _chain.Diagnostics.Count(write.Kind, write.Length);
                position += write.Length;
            }
        }

        if (_part is not null)
        {
            return;
        }

        if (hasPart)
        {
            // A part without blocks: the writer holds it for its decision all the same, so it gets its version.
            _map.Publish(version, countBeforePart);
            _part = (++_version, countBeforePart, count);
            return;
        }

        _map.Publish(version, count);
    }
}
