namespace Stellar.Store.Engine;

/// <summary>
/// A parallel loop whose caller runs the iterations too and never waits for a pool thread that has not started: the
/// pool threads asked to help take iterations only if they start while some are left. <c>Parallel.For</c> called on a
/// thread outside the pool (a writer's or a device's own thread, a game's main thread) waits at its end for every
/// helper it queued to run, even one that would find nothing left to do; with every pool thread blocked (a game that
/// waits synchronously for the store, with <see cref="StoreOptions.DedicatedThreads"/>), it waited for ever.
/// </summary>
/// <remarks>
/// Thread safety: <see cref="For"/> may be called from any thread. As with <c>Parallel.For</c>, the first failure stops
/// the iterations not yet started, and the failures of those that ran are thrown together, as an
/// <see cref="AggregateException"/>, once every iteration that started has ended.
/// </remarks>
internal sealed class SharedLoop
{
    private readonly int _count;
    private readonly Action<int> _body;
    private readonly object _gate = new();
    private List<Exception>? _failures;
    private int _next = -1;
    private int _finished;
    private volatile bool _stopped;

    private SharedLoop(int count, Action<int> body)
    {
        _count = count;
        _body = body;
    }

    /// <summary>
    /// Runs <paramref name="body"/> for every index from 0 to <paramref name="count"/> - 1, on the calling thread and on
    /// at most <paramref name="parallelism"/> - 1 pool threads at once; returns once every iteration has ended.
    /// </summary>
    /// <exception cref="AggregateException">An iteration threw: what each that threw threw.</exception>
    public static void For(int count, int parallelism, Action<int> body)
    {
        if (count == 0)
        {
            return;
        }

        var loop = new SharedLoop(count, body);
        for (var helper = 1; helper < Math.Min(parallelism, count); helper++)
        {
            ThreadPool.UnsafeQueueUserWorkItem(static loop => loop.Work(), loop, preferLocal: false);
        }

        loop.Work();

        // Every index is taken; those taken by helpers end on their threads, which are running.
        lock (loop._gate)
        {
            while (Volatile.Read(ref loop._finished) < count)
            {
                Monitor.Wait(loop._gate);
            }
        }

        if (loop._failures is { } failures)
        {
            throw new AggregateException(failures);
        }
    }

    /// <summary>Takes indexes until none is left, running each unless an iteration failed; the last to end says so.</summary>
    private void Work()
    {
        int index;
        while ((index = Interlocked.Increment(ref _next)) < _count)
        {
            if (!_stopped)
            {
                try
                {
                    _body(index);
                }
                catch (Exception e)
                {
                    lock (_gate)
                    {
                        (_failures ??= []).Add(e);
                    }

                    _stopped = true;
                }
            }

            if (Interlocked.Increment(ref _finished) == _count)
            {
                lock (_gate)
                {
                    Monitor.PulseAll(_gate);
                }
            }
        }
    }
}
