using System.Collections.Concurrent;

namespace Stellar.Store.Feed;

/// <summary>
/// One gate per named cursor of a store: an update of a cursor (acknowledge, hold, release, delete) reads its stored
/// record and writes it back whole, so the updates of one cursor pass its gate one at a time, each reading what the
/// one before it wrote, and none is lost. Cursors of other names never wait for each other.
/// </summary>
/// <remarks>
/// Thread safety: any thread. A gate is made at a cursor's first update and kept while the store is open: one small
/// object per cursor name updated, which a store has few of.
/// </remarks>
internal sealed class FeedCursorGates
{
    private readonly ConcurrentDictionary<string, SemaphoreSlim> _gates = new(StringComparer.Ordinal);

    /// <summary>
    /// Runs <paramref name="update"/> alone among the updates of cursor <paramref name="id"/> (key <c>collection/cursor</c>):
    /// it starts once every update that entered before it completed. <paramref name="cancellationToken"/> ends only the
    /// wait to enter; an update that started runs to its outcome.
    /// </summary>
    public async Task<T> RunAsync<T>(string id, Func<Task<T>> update, CancellationToken cancellationToken)
    {
        var gate = _gates.GetOrAdd(id, static _ => new SemaphoreSlim(1, 1));
        await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            return await update().ConfigureAwait(false);
        }
        finally
        {
            gate.Release();
        }
    }
}
