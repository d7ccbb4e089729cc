using System.Diagnostics;
using System.Runtime.CompilerServices;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Shards;

namespace Stellar.Store.Feed;

/// <summary>
/// One collection's change feed: reads its committed blocks in sequence order, from a position still on disk to the
/// committed end, then waits there for the writer to move it (see <see cref="ChangeFeedTail"/>).
/// </summary>
/// <remarks>Thread safety: any number of feeds may read at once, on any threads; each enumeration is its own reader.</remarks>
internal sealed class ChangeFeed<TKey, TValue>
    where TKey : notnull
{
    private readonly string _name;
    private readonly ShardChain _chain;
    private readonly BlockCodec _codec;
    private readonly RecordSerializer _serializer;
    private readonly Func<UnitTag, bool> _decided;

    /// <summary>The size of the last snapshot counted (see <see cref="SnapshotRecords"/>); replaced whole, read by any thread.</summary>
    private SnapshotSize? _snapshotSize;

    /// <param name="name">The collection's name, for errors.</param>
    /// <param name="chain">Its shard chain.</param>
    /// <param name="codec">The store's block codec.</param>
    /// <param name="serializer">How the collection's keys and values are read from their bytes.</param>
    /// <param name="tail">The committed end its writer moves.</param>
    /// <param name="decided">Whether a cross-collection round a part block names was committed.</param>
    public ChangeFeed(string name, ShardChain chain, BlockCodec codec, RecordSerializer serializer, ChangeFeedTail tail, Func<UnitTag, bool> decided)
    {
        _name = name;
        _chain = chain;
        _codec = codec;
        _serializer = serializer;
        Tail = tail;
        _decided = decided;
    }

    /// <summary>The committed end.</summary>
    public ChangeFeedTail Tail { get; }

    /// <summary>The oldest position the feed can start from now: the last compaction's snapshot, or the first block.</summary>
    public ChangePosition Oldest => _chain.Listing.CompactedThrough is > 0 and var through
        ? ChangePosition.InSnapshot(through, 0)
        : ChangePosition.Start;

    /// <summary>The position a feed from <see cref="ChangePosition.Now"/> starts at if it starts now.</summary>
    public ChangePosition End => ChangePosition.InHistory(Tail.Current.Next, 0);

    /// <summary>
    /// Every committed change after <paramref name="from"/>, then each one committed later, until cancelled.
    /// <paramref name="handToOs"/> makes what Buffered mode holds in memory reach the OS (the writer's flush), for a
    /// feed that finds the committed end beyond its file.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">At the call: <paramref name="from"/> is a position the collection has not reached (see <see cref="ThrowIfNotReached"/>).</exception>
    public IAsyncEnumerable<Change<TKey, TValue>> ReadAsync(ChangePosition from, Func<Task> handToOs, CancellationToken cancellationToken)
    {
        ThrowIfNotReached(from, nameof(from));

        // Now is the end at the call, not at the enumeration's first step: a snapshot taken between the two sees only
        // what was committed before the first, and a later start would pass over what was committed in between.
        return ReadFromAsync(from.IsNow ? End : from, handToOs, cancellationToken);
    }

    /// <summary>
    /// Throws when <paramref name="position"/> names a point the collection has not reached: past the committed end,
    /// in the snapshot of a compaction that has not happened, or past the last record of the current snapshot. A feed
    /// from such a point would wait for a sequence the writer has not handed out, or step over the snapshot, and skip
    /// the changes committed before it without a word. <see cref="ChangePosition.Now"/>, the end itself and history a
    /// compaction replaced pass: the feed resolves the first and reports the last as unavailable.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="position"/> is not reached, named by <paramref name="paramName"/>.</exception>
    public void ThrowIfNotReached(ChangePosition position, string paramName)
    {
        if (position.IsNow)
        {
            return;
        }

        if (!position.IsSnapshot)
        {
            var end = End;
            if (position > end)
            {
                throw new ArgumentOutOfRangeException(paramName, position,
                    $"Position {position} is past the end of collection '{_name}', which is at {end} (the position of its next change): a feed from there would skip the changes before it.");
            }

            return;
        }

        var listing = _chain.Listing;
        var through = listing.CompactedThrough ?? 0;
        if (position.Sequence > through)
        {
            throw new ArgumentOutOfRangeException(paramName, position,
                $"Position {position} names the snapshot of a compaction through block {position.Sequence}, but collection '{_name}' is compacted {(through > 0 ? $"through block {through}" : "through no block")}.");
        }

        if (position.Sequence == through && SnapshotRecords(listing, through) is { } records && position.Record > records)
        {
            throw new ArgumentOutOfRangeException(paramName, position,
                $"Position {position} is past the snapshot of collection '{_name}', which holds {records} records and ends at {ChangePosition.InSnapshot(through, records)}: a feed from there would skip the changes after the snapshot.");
        }
    }

    private async IAsyncEnumerable<Change<TKey, TValue>> ReadFromAsync(ChangePosition from, Func<Task> handToOs, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var open = Tail.Open();
        using var reader = new ChangeFeedReader<TKey, TValue>(_name, _chain, _codec, _serializer, _decided, from);
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var tail = Tail.Current;
            var filled = reader.Fill(tail);
            if (filled == FillResult.Filled)
            {
                foreach (var change in reader.Batch)
                {
                    yield return change;
                }
            }
            else if (filled == FillResult.BehindTheOs)
            {
                await handToOs().ConfigureAwait(false);
            }
            else
            {
                // A position past the end was refused at the call, and the end only moves forward.
                Debug.Assert(reader.Position.Sequence <= tail.Next, "the feed never stands past the committed end");
                await Tail.WaitPastAsync(tail.Next, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    /// <summary>
    /// The number of records in the snapshot of the compaction through <paramref name="through"/>: the record counts of
    /// its blocks' headers (nothing decoded), counted once per compaction. Null when a later compaction retired the
    /// snapshot while it was counted (its positions are then unavailable, which the feed reports).
    /// </summary>
    private uint? SnapshotRecords(ManifestCollection listing, ulong through)
    {
        if (Volatile.Read(ref _snapshotSize) is { } known && known.Through == through)
        {
            return known.Records;
        }

        uint records = 0;
        foreach (var shardId in listing.Shards)
        {
            if (!ChangeFeedReader<TKey, TValue>.IsSnapshotShard(listing, shardId, through))
            {
                break;
            }

            Storage.IStorageFile file;
            try
            {
                file = _chain.OpenForFeed(shardId);
            }
            catch (FileNotFoundException) when (!_chain.Listing.Shards.Contains(shardId))
            {
                return null;
            }

            using var shard = new ShardBlockReader(shardId, file, _chain.PathOf(shardId), ShardChain.BlocksStart(listing, shardId));
            while (shard.TryNext(listing.ShardDetails[shardId].SealedLength!.Value, out var header, out _, out _))
            {
                records += header.RecordCount;
            }
        }

        Volatile.Write(ref _snapshotSize, new SnapshotSize(through, records));
        return records;
    }

    /// <summary>The records of the snapshot of the compaction through <see cref="Through"/>, which never change.</summary>
    private sealed record SnapshotSize(ulong Through, uint Records);
}
