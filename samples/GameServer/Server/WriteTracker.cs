namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// Follows the store writes the tick issued without waiting for them: when one is stored it counts it and runs its
/// continuation (usually the reply to the client); when one fails, the server is faulted, because its memory
/// now holds a change the store does not.
/// </summary>
internal sealed class WriteTracker
{
    private readonly WriteStats _stats;
    private readonly Action<Exception> _onFault;
    private int _inFlight;
    private Exception? _fault;

    /// <param name="stats">Where stored writes are counted.</param>
    /// <param name="onFault">Runs once, on the first failed write.</param>
    public WriteTracker(WriteStats stats, Action<Exception> onFault)
    {
        _stats = stats;
        _onFault = onFault;
    }

    /// <summary>The first write failure, or null.</summary>
    public Exception? Fault => Volatile.Read(ref _fault);

    /// <summary>Writes issued and not yet stored.</summary>
    public int InFlight => Volatile.Read(ref _inFlight);

    /// <summary>Counts <paramref name="write"/> as <paramref name="kind"/> and runs <paramref name="stored"/> once it is stored.</summary>
    public void Track(Task write, WriteKind kind, Action stored)
    {
        Interlocked.Increment(ref _inFlight);
        _ = CompleteAsync(write, kind, stored);
    }

    /// <summary>Completes when every tracked write has its outcome.</summary>
    public async Task WhenIdleAsync()
    {
        while (InFlight > 0)
        {
            await Task.Delay(5).ConfigureAwait(false);
        }
    }

    private async Task CompleteAsync(Task write, WriteKind kind, Action stored)
    {
        try
        {
            await write.ConfigureAwait(false);
            _stats.Count(kind);
            stored();
        }
        catch (Exception e)
        {
            if (Interlocked.CompareExchange(ref _fault, e, null) is null)
            {
                _onFault(e);
            }
        }
        finally
        {
            Interlocked.Decrement(ref _inFlight);
        }
    }
}
