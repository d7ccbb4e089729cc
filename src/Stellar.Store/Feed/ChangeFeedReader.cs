using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Engine;
using Stellar.Store.Format;
using Stellar.Store.Shards;

namespace Stellar.Store.Feed;

/// <summary>
/// One feed's reading state: the position it delivers next and the shard it reads, one buffer at a time. Each
/// <see cref="Fill"/> decodes committed blocks into <see cref="Batch"/>, whole units only: a block, or every block of
/// a cross-collection round's part, which are committed together. Blocks are verified and decoded by the store's
/// <see cref="BlockCodec"/>, their records walked by <see cref="BlockRecords"/> and <see cref="RecordFormat"/>, as the
/// load at open does.
/// </summary>
/// <remarks>
/// <para>History and snapshot: a compaction replaces the blocks up to <see cref="ManifestCollection.CompactedThrough"/>
/// with shards of the records alive then, listed first in the chain. Those are read as a snapshot, numbered by record
/// across the snapshot (<see cref="ChangePosition.InSnapshot"/>), after which history goes on at the next sequence. A
/// position inside the replaced history, or in the snapshot of an earlier compaction, is no longer available.</para>
/// <para>Thread safety: one enumeration's; used by one thread at a time.</para>
/// </remarks>
internal sealed class ChangeFeedReader<TKey, TValue> : IDisposable
    where TKey : notnull
{
    /// <summary>A fill stops adding blocks once it holds this many changes (a unit is never split).</summary>
    private const int BatchTarget = 4096;

    private readonly string _name;
    private readonly ShardChain _chain;
    private readonly BlockCodec _codec;
    private readonly RecordSerializer _serializer;
    private readonly Func<UnitTag, bool> _decided;
    private ShardBlockReader? _shard;

    /// <summary>While reading a snapshot: the index in the chain of the shard read, and the snapshot records before its next block.</summary>
    private int _snapshotShard;
    private uint _snapshotRecords;

    public ChangeFeedReader(string name, ShardChain chain, BlockCodec codec, RecordSerializer serializer, Func<UnitTag, bool> decided, ChangePosition from)
    {
        _name = name;
        _chain = chain;
        _codec = codec;
        _serializer = serializer;
        _decided = decided;
        Position = from;
    }

    /// <summary>The position after the last change filled: where the next fill starts.</summary>
    public ChangePosition Position { get; private set; }

    /// <summary>The changes of the last fill, in order; replaced by the next.</summary>
    public List<Change<TKey, TValue>> Batch { get; } = new();

    /// <summary>Decodes the committed units after <see cref="Position"/> (up to <paramref name="tail"/>) into <see cref="Batch"/>.</summary>
    /// <exception cref="ChangeFeedPositionUnavailableException">A compaction replaced the changes after the position.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The position names a record past the last of its block.</exception>
    public FillResult Fill(FeedTail tail)
    {
        Batch.Clear();

        // The listing is read after the end: a shard is listed before any block in it is committed.
        var listing = _chain.Listing;
        var through = listing.CompactedThrough ?? 0;
        if (Position == ChangePosition.Start)
        {
            Position = through > 0 ? ChangePosition.InSnapshot(through, 0) : ChangePosition.InHistory(0, 0);
        }

        if (Position.IsSnapshot)
        {
            if (Position.Sequence != through)
            {
                throw Unavailable(through);
            }

            if (FillSnapshot(listing, through))
            {
                return FillResult.Filled;
            }

            Position = ChangePosition.InHistory(through + 1, 0);
        }

        if (through > 0 && Position.Sequence <= through)
        {
            throw Unavailable(through);
        }

        return FillHistory(listing, through, tail);
    }

    public void Dispose() => CloseShard();

    /// <summary>The error for a feed from <paramref name="from"/>, which names a record past the last of its block's <paramref name="records"/>.</summary>
    private ArgumentOutOfRangeException PastItsBlock(ChangePosition from, uint records) =>
        new(nameof(from), from, $"Position {from} is past the last record of block {from.Sequence} of collection '{_name}', which holds {records} records.");

    private ChangeFeedPositionUnavailableException Unavailable(ulong through) =>
        new(_name, Position, through > 0 ? ChangePosition.InSnapshot(through, 0) : ChangePosition.Start);

    /// <summary>Fills from the snapshot of the compaction through <paramref name="through"/>; false once it is all delivered.</summary>
    private bool FillSnapshot(ManifestCollection listing, ulong through)
    {
        while (Batch.Count < BatchTarget)
        {
            if (_shard is null)
            {
                if (_snapshotShard >= listing.Shards.Count || !IsSnapshotShard(listing, listing.Shards[_snapshotShard], through))
                {
                    _snapshotShard = 0;
                    _snapshotRecords = 0;
                    break;
                }

                OpenShard(listing, listing.Shards[_snapshotShard]);
            }

            var shard = _shard!;
            if (!shard.TryNext(listing.ShardDetails[shard.ShardId].SealedLength!.Value, out var header, out var offset, out var block))
            {
                CloseShard();
                _snapshotShard++;
                continue;
            }

            var first = _snapshotRecords;
            _snapshotRecords += header.RecordCount;
            if (_snapshotRecords <= Position.Record)
            {
                continue;
            }

            var raw = _codec.Decode(block, header, _chain.SaltOf(shard.ShardId), shard.Path, offset);
            var start = BlockRecords.Start(raw, header.Flags, shard.Path, offset, out _);
            var added = AddRecords(raw, start, header, shard.Path, offset, (int)(Position.Record - first), ChangePosition.InSnapshot(through, first));
            Position = ChangePosition.InSnapshot(through, _snapshotRecords);
            if (added > 0 && IsLastSnapshotBlock(listing, through))
            {
                // The end of the snapshot is where history goes on, a position the next compaction keeps if it
                // replaces no block after this one's.
                Batch[^1] = Batch[^1] with { Position = ChangePosition.InHistory(through + 1, 0) };
            }

            EndUnit();
        }

        return Batch.Count > 0;
    }

    /// <summary>Whether the block just read is the snapshot's last: its shard is at its end, and no snapshot shard follows.</summary>
    private bool IsLastSnapshotBlock(ManifestCollection listing, ulong through) =>
        _shard!.Offset == listing.ShardDetails[_shard.ShardId].SealedLength
        && (_snapshotShard + 1 >= listing.Shards.Count || !IsSnapshotShard(listing, listing.Shards[_snapshotShard + 1], through));

    /// <summary>Whether <paramref name="shardId"/> holds part of the snapshot of the compaction through <paramref name="through"/> (those lead the chain).</summary>
    internal static bool IsSnapshotShard(ManifestCollection listing, uint shardId, ulong through) =>
        listing.ShardDetails.TryGetValue(shardId, out var details) && details.LastSequence is { } last && last <= through;

    /// <summary>Fills from history: the blocks after <see cref="Position"/> below the committed end.</summary>
    private FillResult FillHistory(ManifestCollection listing, ulong through, FeedTail tail)
    {
        UnitTag? unit = null;

        // Where the part read now began, and the changes of the batch before it.
        var unitFrom = Position;
        var beforeUnit = 0;
        while (Position.Sequence < tail.Next)
        {
            if (_shard is null && !OpenShardHolding(listing, through, Position.Sequence))
            {
                break;
            }

            var shard = _shard!;
            long limit;
            if (shard.ShardId == tail.ShardId)
            {
                if (shard.FileLength < tail.End)
                {
                    if (unit is not null)
                    {
                        // A part begun in a shard before this one is not whole yet: it is read again, whole, once what
                        // Buffered mode holds reached the OS.
                        Batch.RemoveRange(beforeUnit, Batch.Count - beforeUnit);
                        Position = unitFrom;
                        CloseShard();
                    }

                    return Batch.Count > 0 ? Filled() : FillResult.BehindTheOs;
                }

                limit = tail.End;
            }
            else if (listing.ShardDetails.TryGetValue(shard.ShardId, out var details) && details.SealedLength is { } sealedLength)
            {
                limit = sealedLength;
            }
            else if (!listing.Shards.Contains(shard.ShardId))
            {
                // A compaction retired the shard after the feed had read it to its end: the compaction replaced only
                // blocks up to its sequence, which the position is past, so the position lies in a shard still listed.
                CloseShard();
                continue;
            }
            else
            {
                // A shard rolled to but without a committed block yet.
                break;
            }

            var before = shard.Offset;
            if (!shard.TryNext(limit, out var header, out var offset, out var block))
            {
                if (shard.ShardId == tail.ShardId)
                {
                    break;
                }

                CloseShard();
                continue;
            }

            if (header.Sequence < Position.Sequence)
            {
                continue;
            }

            if (header.Sequence == Position.Sequence && Position.Record > header.RecordCount)
            {
                // A delivered position names at most the block's last record: going on from a larger one would pass over the block unread.
                throw PastItsBlock(Position, header.RecordCount);
            }

            var raw = _codec.Decode(block, header, _chain.SaltOf(shard.ShardId), shard.Path, offset);
            var start = BlockRecords.Start(raw, header.Flags, shard.Path, offset, out var tag);
            if (unit is not null && tag != unit)
            {
                // The part read before is whole: this block starts the next unit, read at the next fill.
                shard.Rewind(before);
                break;
            }

            var skip = header.Sequence == Position.Sequence ? (int)Position.Record : 0;
            var sequence = header.Sequence;
            if (unit is null)
            {
                unitFrom = Position;
                beforeUnit = Batch.Count;
            }

            Position = ChangePosition.InHistory(sequence + 1, 0);
            if (tag is { } round && !_decided(round))
            {
                // A round whose decision never reached the unit log (found at open): none of its records count.
                continue;
            }

            AddRecords(raw, start, header, shard.Path, offset, skip, ChangePosition.InHistory(sequence, 0));
            unit = tag;
            if (tag is null)
            {
                // The last change of a block ends where the next block starts.
                EndUnit();
                if (Batch.Count >= BatchTarget)
                {
                    break;
                }
            }
        }

        return Batch.Count > 0 ? Filled() : FillResult.AtTheEnd;
    }

    private FillResult Filled()
    {
        EndUnit();
        return FillResult.Filled;
    }

    /// <summary>Marks the last change of the batch as the end of its unit (a part's, whose last block was just read).</summary>
    private void EndUnit()
    {
        if (Batch.Count > 0 && !Batch[^1].EndsUnit)
        {
            Batch[^1] = Batch[^1] with { EndsUnit = true, Position = Position.IsSnapshot ? Batch[^1].Position : Position };
        }
    }

    /// <summary>Opens the first shard of the history that may hold <paramref name="sequence"/> or a later block; false when none is listed yet.</summary>
    private bool OpenShardHolding(ManifestCollection listing, ulong through, ulong sequence)
    {
        foreach (var shardId in listing.Shards)
        {
            var details = listing.ShardDetails.GetValueOrDefault(shardId);
            if (details is { LastSequence: { } last } && (last <= through || last < sequence))
            {
                continue;
            }

            if (details is { IsSealed: true, LastSequence: null })
            {
                continue;
            }

            OpenShard(listing, shardId);
            return true;
        }

        return false;
    }

    private void OpenShard(ManifestCollection listing, uint shardId)
    {
        var path = _chain.PathOf(shardId);
        Storage.IStorageFile file;
        try
        {
            file = _chain.OpenForFeed(shardId);
        }
        catch (FileNotFoundException e) when (!_chain.Listing.Shards.Contains(shardId))
        {
            // A compaction retired it after the listing was read: the position is gone, unless it is past the compaction.
            var through = _chain.Listing.CompactedThrough ?? 0;
            throw Position.Sequence <= through || Position.IsSnapshot
                ? Unavailable(through)
                : new InvalidOperationException($"Shard '{path}' left the chain while its blocks were still wanted.", e);
        }

        _shard = new ShardBlockReader(shardId, file, path, ShardChain.BlocksStart(listing, shardId));
    }

    private void CloseShard()
    {
        _shard?.Dispose();
        _shard = null;
    }

    /// <summary>
    /// Adds the records of a decoded block from record <paramref name="skip"/> on, record <c>i</c> at the position
    /// <c>i + 1</c> records after <paramref name="blockStart"/>; returns how many it added.
    /// </summary>
    private int AddRecords(byte[] raw, int position, in BlockHeader header, string path, long offset, int skip, ChangePosition blockStart)
    {
        var count = BlockRecords.Count(raw, position, header.RecordCount, path, offset);
        var added = 0;
        try
        {
            for (var i = 0; i < count; i++)
            {
                var parsed = RecordFormat.TryRead(raw, ref position, out RecordExtent record);
                System.Diagnostics.Debug.Assert(parsed, "BlockRecords.Count walked these same bytes");
                if (i < skip)
                {
                    continue;
                }

                var key = _serializer.Deserialize<TKey>(raw.AsMemory(record.KeyOffset, record.KeyLength));
                var put = record.Kind == RecordKind.Put;
                Batch.Add(new Change<TKey, TValue>
                {
                    Kind = put ? ChangeKind.Put : ChangeKind.Delete,
                    Key = key,
                    Value = put ? _serializer.Deserialize<TValue>(raw.AsMemory(record.ValueOffset, record.ValueLength)) : default,
                    ExpiresAt = record.ExpiresAt != 0 ? new DateTimeOffset(record.ExpiresAt, TimeSpan.Zero) : null,
                    Position = blockStart.IsSnapshot
                        ? ChangePosition.InSnapshot(blockStart.Sequence, blockStart.Record + (uint)i + 1)
                        : ChangePosition.InHistory(blockStart.Sequence, (uint)i + 1),
                });
                added++;
            }
        }
        catch (MessagePackSerializationException e)
        {
            throw new CorruptBlockException(path, offset, $"a record does not decode as {typeof(TKey).Name} -> {typeof(TValue).Name}", e);
        }

        return added;
    }
}
