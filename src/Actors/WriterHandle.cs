using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>
/// The caller's side of a writer: bounds the writes queued per collection (callers wait asynchronously when the
/// queue is full, so memory cannot grow without limit) and sends each write with <c>Tell</c>, never <c>Ask</c>.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
public sealed class WriterHandle : IDisposable
{
    private readonly IActorRef _writer;
    private readonly SemaphoreSlim _slots;
    private readonly object _gate = new();
    private Task? _close;

    /// <summary>Wraps <paramref name="writer"/> with a queue bound of <paramref name="maxQueued"/> writes.</summary>
    public WriterHandle(IActorRef writer, int maxQueued)
    {
        _writer = writer;
        _slots = new SemaphoreSlim(maxQueued, maxQueued);
    }

    /// <summary>
    /// Queues <paramref name="write"/> and completes with its outcome. <paramref name="cancellationToken"/> is
    /// honoured only until the write is queued; a queued write always runs to its outcome. After
    /// <see cref="CloseAsync"/>, fails with <see cref="ObjectDisposedException"/>.
    /// </summary>
    public async Task<object?> SubmitAsync(object write, CancellationToken cancellationToken)
    {
        if (!_slots.Wait(0, CancellationToken.None))
        {
            await _slots.WaitAsync(cancellationToken).ConfigureAwait(false);
        }

        try
        {
            var completion = new TaskCompletionSource<object?>(TaskCreationOptions.RunContinuationsAsynchronously);
            Send(new WriterProtocol.Append(write, completion));
            return await completion.Task.ConfigureAwait(false);
        }
        finally
        {
            _slots.Release();
        }
    }

    /// <summary>Completes when everything committed before the call is durable on the device.</summary>
    /// <exception cref="ObjectDisposedException"><see cref="CloseAsync"/> was called.</exception>
    public Task FlushAsync()
    {
        var completion = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        Send(new WriterProtocol.Flush(completion));
        return completion.Task;
    }

    /// <summary>Releases the queue bound; call after <see cref="CloseAsync"/> completed.</summary>
    public void Dispose() => _slots.Dispose();

    /// <summary>Finishes queued writes, flushes, and stops the writer; later writes and flushes fail with <see cref="ObjectDisposedException"/>.</summary>
    public Task CloseAsync()
    {
        lock (_gate)
        {
            if (_close is null)
            {
                var completion = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                _writer.Tell(new WriterProtocol.Close(completion));
                _close = completion.Task;
            }

            return _close;
        }
    }

    private void Send(object message)
    {
        // Under the lock that Close is sent under, so every message sent before it reaches the writer before it.
        // After it the writer stops, and a message to a stopped actor is dropped: its task would never complete.
        lock (_gate)
        {
            if (_close is not null)
            {
                throw new ObjectDisposedException("store", "The store is closed.");
            }

            _writer.Tell(message);
        }
    }
}
