namespace Stellar.Store.Engine;

/// <summary>
/// Runs one collection's compactions, one at a time: the two writer steps go through the collection's writer
/// (queued like writes), the copy runs on the thread pool. Starts automatic compactions when the engine asks, and
/// stops them when the store closes.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal sealed class Compactor : IDisposable
{
    private readonly Func<object, CancellationToken, Task> _submit;
    private readonly ICompactionTarget _target;
    private readonly SemaphoreSlim _gate = new(1, 1);
    private readonly CancellationTokenSource _stopping = new();
    private Task _automatic = Task.CompletedTask;
    private int _automaticRunning;
    private Exception? _lastError;

    public Compactor(ICompactionTarget target, Func<object, CancellationToken, Task> submit)
    {
        _target = target;
        _submit = submit;
    }

    /// <summary>Why the last automatic compaction failed, or null.</summary>
    public Exception? LastError => Volatile.Read(ref _lastError);

    public async Task CompactAsync(CancellationToken cancellationToken)
    {
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _stopping.Token);
        await _gate.WaitAsync(linked.Token).ConfigureAwait(false);
        try
        {
            var run = new CompactionRun();
            await _submit(new CompactionStep(run, Begin: true), linked.Token).ConfigureAwait(false);
            if (!run.HasWork)
            {
                return;
            }

            try
            {
                await Task.Run(() => _target.CopyLive(run, linked.Token), linked.Token).ConfigureAwait(false);
            }
            catch
            {
                _target.AbandonCompaction(run);
                throw;
            }

            // From here the writer owns the outcome: it swaps the output in, or faults the collection when the swap
            // fails, since such a failure may have taken effect.
            await _submit(new CompactionStep(run, Begin: false), CancellationToken.None).ConfigureAwait(false);
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
    /// Hands the writer a <see cref="ReleaseStep"/> after the oldest snapshot was released, so that what only it held
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
        _submit(ReleaseStep.Instance, CancellationToken.None).ContinueWith(
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
