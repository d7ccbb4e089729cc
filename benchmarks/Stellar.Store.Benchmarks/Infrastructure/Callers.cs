namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// Callers made before the timed region (threads created and started, tasks queued), each held at a gate, so that
/// the timed region measures the writes and not the creation of 64 threads. Synchronous peers get threads, so a
/// blocked caller does not starve the thread pool; our asynchronous API gets tasks.
/// </summary>
public sealed class Callers
{
    private readonly ManualResetEventSlim _threadGate = new(false);
    private readonly TaskCompletionSource _taskGate = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Thread[] _threads;
    private readonly Task[] _tasks;

    private Callers(Thread[] threads, Task[] tasks)
    {
        _threads = threads;
        _tasks = tasks;
    }

    /// <summary><paramref name="count"/> started threads, each running <paramref name="body"/>(its index) once the gate opens.</summary>
    public static Callers Threads(int count, Action<int> body)
    {
        var callers = new Callers(new Thread[count], []);
        for (var c = 0; c < count; c++)
        {
            var caller = c;
            callers._threads[c] = new Thread(() =>
            {
                callers._threadGate.Wait();
                body(caller);
            }) { IsBackground = true };
            callers._threads[c].Start();
        }

        return callers;
    }

    /// <summary><paramref name="count"/> queued tasks, each running <paramref name="body"/>(its index) once the gate opens.</summary>
    public static Callers Tasks(int count, Func<int, Task> body)
    {
        var callers = new Callers([], new Task[count]);
        for (var c = 0; c < count; c++)
        {
            var caller = c;
            callers._tasks[c] = Task.Run(async () =>
            {
                await callers._taskGate.Task.ConfigureAwait(false);
                await body(caller).ConfigureAwait(false);
            });
        }

        return callers;
    }

    /// <summary>Opens the gate and waits for every caller (the timed part).</summary>
    public void Run()
    {
        _threadGate.Set();
        _taskGate.TrySetResult();
        foreach (var thread in _threads)
        {
            thread.Join();
        }

        Task.WaitAll(_tasks);
    }

    /// <summary>Opens the gate and completes when every caller has (the timed part, for async benchmarks).</summary>
    public Task RunAsync()
    {
        _threadGate.Set();
        _taskGate.TrySetResult();
        foreach (var thread in _threads)
        {
            thread.Join();
        }

        return Task.WhenAll(_tasks);
    }
}
