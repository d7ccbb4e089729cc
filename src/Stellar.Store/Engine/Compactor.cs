namespace Stellar.Store.Engine;

/// <summary>
/// Schedules one collection's compactions, one at a time (the <see cref="ICompactionTarget"/> runs each). Starts
/// automatic compactions when the engine asks, and stops them when the store closes.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal sealed class Compactor : IDisposable
{
    private readonly ICompactionTarget _target;
    private readonly SemaphoreSlim _gate = new(1, 1);
    private readonly CancellationTokenSource _stopping = new();
    private Task _automatic = Task.CompletedTask;
    private int _automaticRunning;
    private Exception? _lastError;

    public Compactor(ICompactionTarget target) => _target = target;

    /// <summary>Why the last automatic compaction failed, or null.</summary>
    public Exception? LastError => Volatile.Read(ref _lastError);

    public async Task CompactAsync(CancellationToken cancellationToken)
    {
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _stopping.Token);
        await _gate.WaitAsync(linked.Token).ConfigureAwait(false);
        try
        {
            await _target.RunAsync(linked.Token).ConfigureAwait(false);
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>Starts a compaction in the background unless one is running. Never blocks (called by the writer).</summary>
    public void StartAutomatic()
    {
        if (_stopping.IsCancellationRequested || Interlocked.CompareExchange(ref _automaticRunning, 1, 0) != 0)
        {
            return;
        }

        _automatic = Task.Run(async () =>
        {
            try
            {
                await CompactAsync(_stopping.Token).ConfigureAwait(false);
                Volatile.Write(ref _lastError, null);
            }
            catch (OperationCanceledException) when (_stopping.IsCancellationRequested)
            {
                // The store is closing; what the run left is removed at the next open.
            }
            catch (Exception e)
            {
                // Report it, and retry once more garbage has gathered (a failure that faulted the collection stops
                // its writes anyway; a clean one changed nothing).
                Volatile.Write(ref _lastError, e);
                _target.DeferAutoCompaction();
            }
            finally
            {
                Volatile.Write(ref _automaticRunning, 0);
            }
        });
    }

    /// <summary>
    /// Hands the writer a <see cref="ReleaseStep{TKey,TValue}"/> after the oldest snapshot was released, so that what only it held
    /// (old versions, compacted shard files) goes without waiting for the next write. Never blocks; any thread, a
    /// finalizer's included. Does nothing once the store is closing, which deletes those files itself.
    /// </summary>
    public void RequestRelease()
    {
        if (_stopping.IsCancellationRequested)
        {
            return;
        }

        // A closing or faulted writer refuses the step; nothing is lost, so the refusal is observed and dropped.
        _target.RequestReleaseAsync().ContinueWith(
            static task => _ = task.Exception,
            CancellationToken.None,
            TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
    }

    /// <summary>Cancels a running compaction and waits until it is over (the store is closing).</summary>
    public async Task StopAsync()
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        await _gate.WaitAsync().ConfigureAwait(false);
        _gate.Release();
        await _automatic.ConfigureAwait(false);
    }

    /// <summary>Deletes what compactions kept for old snapshots; call once the collection's writer has stopped.</summary>
    public void DeleteRetired() => _target.DeleteAllRetired();

    public void Dispose()
    {
        _gate.Dispose();
        _stopping.Dispose();
    }
}
