namespace Stellar.Store.Actors;

/// <summary>
/// Keeps everything sent to one writer in the order it was made, across the two ways there are to it: a write or a
/// flush goes straight to the writer, a cross-collection unit goes through the <see cref="UnitCoordinator"/>, which
/// sends its part later. While no unit touching the collection is in flight, nothing waits here (one read). While one
/// is, a later write or flush waits until the unit has its outcome and is handed on after it; and a unit waits until
/// the writes and flushes made before it were handed on, and is handed to the coordinator after them. So a caller
/// that does not await gets the order it wrote in, as it does without units.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread. The tasks kept here never fault.</remarks>
internal sealed class WriteOrder
{
    private readonly object _gate = new();

    /// <summary>Units in flight and items waiting here: while it is 0, an item is handed on at once.</summary>
    private int _held;

    /// <summary>Completes when the item that entered last was handed on.</summary>
    private Task _handedOn = Task.CompletedTask;

    /// <summary>Completes when every unit that entered so far has its outcome.</summary>
    private Task _unitsDone = Task.CompletedTask;

    /// <summary>Whether an item may be handed on now: nothing before it waits, and no unit is in flight.</summary>
    public bool IsClear => Volatile.Read(ref _held) == 0;

    /// <summary>
    /// Runs <paramref name="handOn"/> once every item before it was handed on and every unit before it has its
    /// outcome, then completes with what <paramref name="handOn"/> returned. <paramref name="cancellationToken"/> is
    /// honoured while it waits here.
    /// </summary>
    public async Task AfterPendingAsync(Func<Task> handOn, CancellationToken cancellationToken)
    {
        var handed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task before;
        lock (_gate)
        {
            before = Task.WhenAll(_handedOn, _unitsDone);
            _handedOn = handed.Task;
            Interlocked.Increment(ref _held);
        }

        Task next;
        try
        {
            await before.WaitAsync(cancellationToken).ConfigureAwait(false);
            next = handOn();
        }
        finally
        {
            // Once handOn has taken its place (a Tell, or a place in the budget's queue), the next item may take its own.
            Interlocked.Decrement(ref _held);
            handed.SetResult();
        }

        await next.ConfigureAwait(false);
    }

    /// <summary>
    /// Enters a unit that touches this writer's collection. Returns what the unit must wait for before it is handed to
    /// the coordinator (the items before it); <paramref name="submitted"/> must complete once it was handed on, or
    /// will never be, and <paramref name="outcome"/> once it has its outcome. Both must never fault.
    /// </summary>
    public Task EnterUnit(Task submitted, Task outcome)
    {
        Task before;
        lock (_gate)
        {
            before = _handedOn;
            _handedOn = submitted;
            _unitsDone = _unitsDone.IsCompleted ? outcome : Task.WhenAll(_unitsDone, outcome);
            Interlocked.Increment(ref _held);
        }

        outcome.ContinueWith(_ => Interlocked.Decrement(ref _held), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        return before;
    }
}
