namespace Stellar.Store.Actors;

/// <summary>
/// What the owner of many writers needs of each, whatever its write type: flush, close, dispose
/// (see <see cref="WriterHandle{TWrite,TResult}"/>).
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal interface IWriterHandle : IDisposable
{
    /// <summary>
    /// Completes when everything committed before the call is durable on the device; fails once the writer is closed.
    /// <paramref name="then"/>, if given, runs with the outcome (null, or the exception the task fails with) as it is
    /// known, on the writer's thread or the caller's, before anything that waits for the task: what follows a flush can
    /// start without a thread of the pool. It must be quick and must not throw.
    /// </summary>
    Task FlushAsync(Action<Exception?>? then = null);

    /// <summary>Finishes queued writes, flushes, and stops the writer.</summary>
    Task CloseAsync();

    /// <summary>
    /// Enters a cross-collection unit that touches this writer's collection into the order of its writes (see
    /// <see cref="WriteOrder.EnterUnit"/>); returns what the unit waits for before it goes to the coordinator: every
    /// write and flush made before it was sent to the writer, including writes that waited for room in the queue bound.
    /// Never faults.
    /// </summary>
    Task EnterUnit(Task submitted, Task outcome);
}
