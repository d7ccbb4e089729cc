using Stellar.Store.Persistence.Records;
using Stellar.Store.Persistence.Storage;

namespace Stellar.Store.Persistence.Query;

/// <summary>
/// The events committed to a journal from the moment it is started, from the collection's change feed: a live
/// query starts one, then reads what was stored before from the log, then follows the tail, skipping what it already
/// delivered, so that no event committed in between is missed. A tail that a compaction left behind ends, as does one
/// whose store closed (see <see cref="NextAsync"/>), and the query does the same again from where it was.
/// </summary>
/// <remarks>Thread safety: one query reads it, one call at a time.</remarks>
internal sealed class EventTail : IAsyncDisposable
{
    private readonly CancellationTokenSource _stop;
    private readonly IAsyncEnumerator<Change<(string, long), JournalRecord>> _changes;
    private Task<bool> _next;

    private EventTail(EventLog log, CancellationToken cancellationToken)
    {
        _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        // The call fixes the feed's start at the committed end, now; the change the first move waits for is read later.
        _changes = log.Events.Changes(ChangePosition.Now, _stop.Token).GetAsyncEnumerator(_stop.Token);
        _next = _changes.MoveNextAsync().AsTask();
    }

    /// <summary>Starts following <paramref name="log"/> from its committed end.</summary>
    public static EventTail Start(EventLog log, CancellationToken cancellationToken) => new(log, cancellationToken);

    /// <summary>
    /// The next event committed (a put of an event, not of a marker and not a delete); waits for one. Null when a
    /// compaction replaced the blocks the tail had still to read (a consumer that fell far behind), or when the store
    /// closed: the query then starts a new tail and reads what it missed from the log, as at its start, on the store as it
    /// is open now (reopened after a fault, see <see cref="StoreSlot"/>), and fails if the store was closed for good.
    /// </summary>
    public async Task<JournalRecord?> NextAsync()
    {
        while (true)
        {
            try
            {
                await _next.ConfigureAwait(false);
            }
            catch (ChangeFeedPositionUnavailableException)
            {
                return null;
            }
            catch (ObjectDisposedException)
            {
                return null;
            }

            var change = _changes.Current;
            _next = _changes.MoveNextAsync().AsTask();
            if (change.Kind == ChangeKind.Put && change.Value is { IsMarker: false } record)
            {
                return record;
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        try
        {
            await _next.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // The tail was stopped while it waited: the end every query of it reaches.
        }
        catch (ObjectDisposedException)
        {
            // The store closed while the tail waited.
        }
        catch (ChangeFeedPositionUnavailableException)
        {
            // A compaction passed the tail before it was stopped: nothing it still had to give is wanted.
        }

        await _changes.DisposeAsync().ConfigureAwait(false);
        _stop.Dispose();
    }
}
