using Akka;
using Akka.Streams.Dsl;

namespace Stellar.Store.Actors;

/// <summary>
/// A collection's change feed as an Akka.Streams <see cref="Source{TOut,TMat}"/>:
/// <c>ChangeFeedSource.Create(ct => collection.Changes(from, ct))</c>, or a named cursor's
/// <c>ct => cursor.Changes(ct)</c>. The source pulls the feed only as fast as downstream demands (back-pressure: at most
/// one change is read ahead of demand), and cancelling the stream (a downstream <c>Take</c>, a kill switch, a stopped
/// materializer) cancels the feed's wait for new commits.
/// </summary>
/// <remarks>
/// Thread safety: the factory is called once per materialization, from the stream's stage; each materialization reads
/// the feed on its own. Nothing is written or acknowledged by the source: a cursor's consumer acknowledges in its own
/// stage, after processing, so that an acknowledged change is durable as the store's mode promises.
/// </remarks>
public static class ChangeFeedSource
{
    /// <summary>A source of the changes <paramref name="feed"/> delivers; the token it is given is cancelled with the stream.</summary>
    /// <typeparam name="TChange">The feed's item, <c>Change&lt;TKey, TValue&gt;</c>.</typeparam>
    public static Source<TChange, NotUsed> Create<TChange>(Func<CancellationToken, IAsyncEnumerable<TChange>> feed)
    {
        ArgumentNullException.ThrowIfNull(feed);
        return Source.From(() => Cancellable(feed));
    }

    /// <summary>
    /// The feed under the stream's own cancellation: the token the stage hands the enumerator is the one the feed's
    /// wait for new commits observes.
    /// </summary>
    private static async IAsyncEnumerable<TChange> Cancellable<TChange>(Func<CancellationToken, IAsyncEnumerable<TChange>> feed,
        [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        await foreach (var change in feed(cancellationToken).ConfigureAwait(false))
        {
            yield return change;
        }
    }
}
