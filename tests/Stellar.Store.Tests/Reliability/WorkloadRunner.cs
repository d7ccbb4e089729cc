using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Runs several <see cref="WorkloadStream"/> tasks in this process against one collection, each until its first
/// failure or a step bound, recording per task the last step it attempted, the last one acknowledged, and the failure.
/// </summary>
internal sealed class WorkloadRunner
{
    private readonly int _seed;
    private readonly int _keysPerTask;
    private readonly Collection<int, WorkloadItem> _items;
    private readonly int[] _acknowledged;
    private readonly int[] _attempted;
    private readonly Exception?[] _failures;
    private int _acknowledgedCount;

    public WorkloadRunner(int seed, int tasks, int keysPerTask, Collection<int, WorkloadItem> items)
    {
        _seed = seed;
        _keysPerTask = keysPerTask;
        _items = items;
        _acknowledged = Enumerable.Repeat(-1, tasks).ToArray();
        _attempted = Enumerable.Repeat(-1, tasks).ToArray();
        _failures = new Exception?[tasks];
    }

    /// <summary>Per task, the last acknowledged step (-1: none), as of now.</summary>
    public int[] Acknowledged => Enumerable.Range(0, _acknowledged.Length).Select(t => Volatile.Read(ref _acknowledged[t])).ToArray();

    /// <summary>Per task, the last step it started (-1: none), as of now.</summary>
    public int[] Attempted => Enumerable.Range(0, _attempted.Length).Select(t => Volatile.Read(ref _attempted[t])).ToArray();

    /// <summary>Per task, the exception it stopped at, if it did.</summary>
    public IReadOnlyList<Exception?> Failures => _failures;

    /// <summary>Acknowledged steps over every task so far.</summary>
    public int AcknowledgedCount => Volatile.Read(ref _acknowledgedCount);

    /// <summary>Starts every task; completes when each has failed or run <paramref name="maxSteps"/> steps.</summary>
    public Task RunAsync(int maxSteps, Action? onAcknowledged = null) =>
        Task.WhenAll(Enumerable.Range(0, _acknowledged.Length).Select(task => Task.Run(() => RunTaskAsync(task, maxSteps, onAcknowledged))));

    private async Task RunTaskAsync(int task, int maxSteps, Action? onAcknowledged)
    {
        var stream = new WorkloadStream(_seed, task, _keysPerTask);
        for (var step = 0; step < maxSteps; step++)
        {
            var op = stream.Next();
            Volatile.Write(ref _attempted[task], step);
            try
            {
                await WorkloadStream.ExecuteAsync(_items, op);
            }
            catch (Exception e)
            {
                _failures[task] = e;
                return;
            }

            Volatile.Write(ref _acknowledged[task], step);
            Interlocked.Increment(ref _acknowledgedCount);
            onAcknowledged?.Invoke();
        }
    }
}
