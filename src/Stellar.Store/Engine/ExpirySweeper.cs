using Stellar.Store.Actors;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// Asks a collection's writer, every sweep interval by the store's clock, to remove the records that have expired (an
/// <see cref="ExpiryStep{TKey,TValue}"/>), when one has; one request at a time. Readers stop seeing a record at its time
/// without it: the sweep makes the removal durable and frees the memory.
/// </summary>
/// <remarks>Thread safety: the timer's callbacks do not overlap a running request; <see cref="DisposeAsync"/> from any thread.</remarks>
internal sealed class ExpirySweeper<TKey, TValue> : IAsyncDisposable
    where TKey : notnull
{
    private readonly VersionedMap<TKey, TValue> _map;
    private readonly WriterHandle<CollectionWrite<TKey, TValue>, bool> _writer;
    private readonly ITimer? _timer;
    private int _running;
    private int _stopped;

    /// <param name="map">The collection's records, whose expiry index says when the first one expires, and whose clock tells the time.</param>
    /// <param name="writer">The collection's writer.</param>
    /// <param name="interval">How often to look; <see cref="Timeout.InfiniteTimeSpan"/> never (the sweeper does nothing).</param>
    public ExpirySweeper(VersionedMap<TKey, TValue> map, WriterHandle<CollectionWrite<TKey, TValue>, bool> writer, TimeSpan interval)
    {
        _map = map;
        _writer = writer;
        if (interval != Timeout.InfiniteTimeSpan)
        {
            _timer = map.Clock.Provider.CreateTimer(static state => ((ExpirySweeper<TKey, TValue>)state!).Sweep(), this, interval, interval);
        }
    }

    public ValueTask DisposeAsync()
    {
        Volatile.Write(ref _stopped, 1);
        return _timer?.DisposeAsync() ?? ValueTask.CompletedTask;
    }

    private void Sweep()
    {
        if (Volatile.Read(ref _stopped) != 0
            || _map.Expiry.Earliest() is not { } earliest
            || earliest > _map.Now
            || Interlocked.CompareExchange(ref _running, 1, 0) != 0)
        {
            return;
        }

        // A writer that closed or faulted refuses it: the records stay stored, unseen, until a later sweep or open.
        var step = new ExpiryStep<TKey, TValue>();
        var removal = _writer.SubmitAsync(step, CancellationToken.None);
        removal.ContinueWith(
            task =>
            {
                _ = task.Exception;
                Volatile.Write(ref _running, 0);
            },
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
    }
}
