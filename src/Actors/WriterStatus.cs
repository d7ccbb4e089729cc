namespace Stellar.Store.Actors;

/// <summary>
/// What a running writer shows of itself to threads outside the actor: the exception its writes fail with once a failed
/// commit or flush has faulted its collection. Read by health checks, and handed once to the callback given at
/// construction (the store logs it); the writer never reads it.
/// </summary>
/// <remarks>Thread safety: set by the writer actor only, read from any thread without locking.</remarks>
internal sealed class WriterStatus
{
    private readonly Action<Exception>? _faulted;
    private Exception? _fault;

    /// <summary>A status that calls <paramref name="faulted"/> (on the writer's turn; it must not block) when the first fault is recorded.</summary>
    public WriterStatus(Action<Exception>? faulted = null) => _faulted = faulted;

    /// <summary>The exception every write fails with since the collection faulted, or null while it has not.</summary>
    public Exception? Fault => Volatile.Read(ref _fault);

    /// <summary>Records the first fault; a collection stays faulted until the store is reopened, so later ones change nothing.</summary>
    internal void Faulted(Exception failure)
    {
        if (Interlocked.CompareExchange(ref _fault, failure, null) is null)
        {
            _faulted?.Invoke(failure);
        }
    }
}
