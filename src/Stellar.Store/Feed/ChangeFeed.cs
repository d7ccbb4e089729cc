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
    public async IAsyncEnumerable<Change<TKey, TValue>> ReadAsync(ChangePosition from, Func<Task> handToOs, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var open = Tail.Open();
        using var reader = new ChangeFeedReader<TKey, TValue>(_name, _chain, _codec, _serializer, _decided, from.IsNow ? End : from);
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
                await Tail.WaitPastAsync(Math.Max(reader.Position.Sequence, tail.Next), cancellationToken).ConfigureAwait(false);
            }
        }
    }
}
