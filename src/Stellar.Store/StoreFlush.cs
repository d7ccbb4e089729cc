using Stellar.Store.Actors;

namespace Stellar.Store;

/// <summary>
/// One <see cref="StellarStore.FlushAsync"/>: every collection's writer flushes at once, then the unit log's writer.
/// Each step starts from the callback of the flushes before it, on the thread that finished the last of them (a
/// writer's, or the caller's when a flush fails at once), so that no step waits for a thread of the pool: a game whose
/// pool threads all wait for the flush still gets it, with <see cref="StoreOptions.DedicatedThreads"/>.
/// </summary>
/// <remarks>Thread safety: the collections' callbacks may run at once, on their writers' threads.</remarks>
internal sealed class StoreFlush
{
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Exception?[] _failures;
    private readonly IWriterHandle? _log;
    private int _remaining;

    /// <summary>Starts the flush of <paramref name="collections"/>, then of <paramref name="log"/> (none: null).</summary>
    public StoreFlush(IReadOnlyList<IWriterHandle> collections, IWriterHandle? log)
    {
        _log = log;
        _failures = new Exception?[collections.Count];
        _remaining = collections.Count;
        if (collections.Count == 0)
        {
            FlushLog();
            return;
        }

        for (var i = 0; i < collections.Count; i++)
        {
            var index = i;
            Observe(collections[i].FlushAsync(failure => Flushed(index, failure)));
        }
    }

    /// <summary>
    /// Completes once every collection and then the unit log are durable; fails with the first collection's failure in
    /// the order they were given (the unit log is then not flushed), or with the unit log's.
    /// </summary>
    public Task Task => _done.Task;

    /// <summary>The callback's outcome is what counts; the task's own exception is read so that it is never reported as unobserved.</summary>
    private static void Observe(Task flush) =>
        flush.ContinueWith(static t => _ = t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);

    private void Flushed(int index, Exception? failure)
    {
        // Written before the decrement, a full fence, so the last collection to finish reads every failure.
        _failures[index] = failure;
        if (Interlocked.Decrement(ref _remaining) > 0)
        {
            return;
        }

        if (Array.Find(_failures, f => f is not null) is { } first)
        {
            _done.TrySetException(first);
            return;
        }

        FlushLog();
    }

    private void FlushLog()
    {
        if (_log is null)
        {
            _done.TrySetResult();
            return;
        }

        Observe(_log.FlushAsync(failure =>
        {
            if (failure is null)
            {
                _done.TrySetResult();
            }
            else
            {
                _done.TrySetException(failure);
            }
        }));
    }
}
