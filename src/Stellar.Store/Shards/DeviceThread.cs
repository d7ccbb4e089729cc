using System.Collections.Concurrent;

namespace Stellar.Store.Shards;

/// <summary>
/// A thread of one collection's own for the work that waits on the device (a group's fsync, a flush), started at its
/// first use. Run on pool threads, the fsyncs of several collections at once held the few threads a small machine's
/// pool starts with, and every caller's continuation waited behind them until the pool grew (64 callers of four
/// collections in Fsync mode made a tenth of the batches they made with enough pool threads). The outcome is reported
/// on this thread, so that the writer hears of it without a hop through the pool.
/// </summary>
/// <remarks>Thread safety: <see cref="RunAsync"/> may be called from any thread; work runs one item at a time, in order.</remarks>
internal sealed class DeviceThread : IDisposable
{
    private readonly BlockingCollection<(Action Work, TaskCompletionSource Done)> _queue = new();
    private readonly string _name;
    private readonly object _gate = new();
    private Thread? _thread;

    public DeviceThread(string name) => _name = name;

    /// <summary>
    /// Runs <paramref name="work"/> on the thread; completes with its outcome, running the task's synchronous
    /// continuations on the thread (keep them short). Fails once the thread was disposed.
    /// </summary>
    public Task RunAsync(Action work)
    {
        var done = new TaskCompletionSource();
        lock (_gate)
        {
            if (_queue.IsAddingCompleted)
            {
                return Task.FromException(new ObjectDisposedException(_name));
            }

            if (_thread is null)
            {
                _thread = new Thread(Loop) { IsBackground = true, Name = _name };
                _thread.Start();
            }

            _queue.Add((work, done));
        }

        return done.Task;
    }

    /// <summary>
    /// Lets the work queued so far finish, then ends the thread. Called on the thread itself (by a continuation of its
    /// work that ran there), it cannot wait for itself: the thread ends once the current item returns.
    /// </summary>
    public void Dispose()
    {
        Thread? thread;
        lock (_gate)
        {
            if (_queue.IsAddingCompleted)
            {
                return;
            }

            _queue.CompleteAdding();
            thread = _thread;
        }

        if (ReferenceEquals(thread, Thread.CurrentThread))
        {
            // The loop still reads the queue once this item returns, so the queue stays undisposed.
            return;
        }

        thread?.Join();
        _queue.Dispose();
    }

    private void Loop()
    {
        foreach (var (work, done) in _queue.GetConsumingEnumerable())
        {
            try
            {
                work();
                done.SetResult();
            }
            catch (Exception e)
            {
                done.SetException(e);
            }
        }
    }
}
