using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>
/// The caller's side of a writer: bounds the writes queued per collection, by count and by bytes (callers wait
/// asynchronously when either is reached, so memory cannot grow without limit), and sends each write with
/// <c>Tell</c>, never <c>Ask</c>, in the order the writes were submitted.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
/// <typeparam name="TWrite">The write type of the writer's sink.</typeparam>
/// <typeparam name="TResult">The result type of the writer's sink.</typeparam>
internal sealed class WriterHandle<TWrite, TResult> : IWriterHandle
{
    private readonly IActorRef _writer;
    private readonly WriteBudget _budget;
    private readonly object _gate = new();
    private readonly WriteOrder _order = new();

    /// <summary><see cref="Send"/>, made once: a write admitted at once passes its message as the state, with no closure.</summary>
    private readonly Action<object?> _send;

    /// <summary>What the owner does with each submitted write once it has an outcome, or null.</summary>
    private readonly Action<TWrite>? _finished;

    /// <summary><see cref="Finished"/>, made once, for every write's <see cref="WriterProtocol.Append{TWrite,TResult}"/>.</summary>
    private readonly Action<WriterProtocol.Append<TWrite, TResult>> _done;

    private Task? _close;

    /// <summary>The Close message was sent: nothing may follow it (under <see cref="_gate"/>).</summary>
    private bool _closeSent;

    /// <summary>Wraps <paramref name="writer"/> with a queue bound of <paramref name="maxQueued"/> writes and no byte bound.</summary>
    public WriterHandle(IActorRef writer, int maxQueued)
        : this(writer, maxQueued, long.MaxValue)
    {
    }

    /// <summary>
    /// Wraps <paramref name="writer"/> with a queue bound of <paramref name="maxQueued"/> writes and
    /// <paramref name="maxQueuedBytes"/> bytes. A write counts from the moment it is queued until its outcome.
    /// <paramref name="finished"/>, when given, is called with each write submitted by <see cref="SubmitAsync(TWrite, long, CancellationToken)"/>
    /// once it has an outcome, whatever that is (stored, refused, never queued): then neither the writer nor its sink
    /// reads the write any more, so its owner may reuse what it holds.
    /// </summary>
    public WriterHandle(IActorRef writer, int maxQueued, long maxQueuedBytes, Action<TWrite>? finished = null)
    {
        _writer = writer;
        _budget = new WriteBudget(maxQueued, maxQueuedBytes);
        _finished = finished;
        _send = message => Send(message!);
        _done = Finished;
    }

    /// <summary>Writes queued or being committed now.</summary>
    internal int QueuedWrites => _budget.QueuedWrites;

    /// <summary>Bytes of the writes queued or being committed now.</summary>
    internal long QueuedBytes => _budget.QueuedBytes;

    /// <summary>The most bytes that were ever queued or being committed at once.</summary>
    internal long PeakQueuedBytes => _budget.PeakQueuedBytes;

    /// <summary>Callers waiting for room in the queue.</summary>
    internal int Waiting => _budget.Waiting;

    /// <inheritdoc cref="SubmitAsync(TWrite, long, CancellationToken)"/>
    public Task<TResult> SubmitAsync(TWrite write, CancellationToken cancellationToken) => SubmitAsync(write, 0, cancellationToken);

    /// <summary>
    /// Queues <paramref name="write"/>, which takes <paramref name="bytes"/> of the byte bound, and completes with its
    /// outcome. When the queue is full the call waits (asynchronously) for room; a write larger than the whole byte
    /// bound is queued once nothing else is. <paramref name="cancellationToken"/> is honoured only until the write
    /// is queued; a queued write always runs to its outcome. After <see cref="CloseAsync"/>, fails with
    /// <see cref="ObjectDisposedException"/>.
    /// </summary>
    /// <remarks>
    /// A write admitted at once costs no frame of its own: the task is the one the writer completes, after it gave the
    /// write's share of the bound back and the write to its owner (<see cref="Finished"/>).
    /// </remarks>
    public Task<TResult> SubmitAsync(TWrite write, long bytes, CancellationToken cancellationToken)
    {
        var append = new WriterProtocol.Append<TWrite, TResult>(write, bytes, _done);
        var admitted = _order.IsClear ? _budget.AdmitAsync(bytes, _send, append, cancellationToken) : AdmitAfterPendingAsync(append, cancellationToken);
        return admitted.IsCompletedSuccessfully ? append.Task : AfterAdmittedAsync(admitted, append);
    }

    /// <summary>
    /// The outcome of <paramref name="append"/>, whose admission <paramref name="admitted"/> had to wait. A write never
    /// admitted (cancelled, or the store closed) never reached the writer, so it goes back to its owner here, and its
    /// share of the bound was never taken.
    /// </summary>
    private async Task<TResult> AfterAdmittedAsync(Task admitted, WriterProtocol.Append<TWrite, TResult> append)
    {
        try
        {
            await admitted.ConfigureAwait(false);
        }
        catch
        {
            _finished?.Invoke(append.Write);
            throw;
        }

        return await append.Task.ConfigureAwait(false);
    }

    /// <summary>Writer's side, once per write at its outcome: gives back its share of the bound, then the write to its owner.</summary>
    private void Finished(WriterProtocol.Append<TWrite, TResult> append)
    {
        try
        {
            _budget.Release(append.Bytes);
        }
        finally
        {
            _finished?.Invoke(append.Write);
        }
    }

    /// <summary>
    /// Admits <paramref name="append"/> once the units and flushes queued before it were handed on (see
    /// <see cref="WriteOrder"/>). Apart from <see cref="SubmitAsync(TWrite, long, CancellationToken)"/>, so that the
    /// state its lambda captures is made only when a write has to wait for them.
    /// </summary>
    private Task AdmitAfterPendingAsync(WriterProtocol.Append<TWrite, TResult> append, CancellationToken cancellationToken) =>
        _order.AfterPendingAsync(() => _budget.AdmitAsync(append.Bytes, _send, append, cancellationToken), cancellationToken);

    /// <summary>
    /// Completes when every write queued before the call is committed and durable on the device; fails with
    /// <see cref="ObjectDisposedException"/> once <see cref="CloseAsync"/> was called. <paramref name="then"/> runs with
    /// the outcome as it is known (see <see cref="IWriterHandle.FlushAsync"/>).
    /// </summary>
    public Task FlushAsync(Action<Exception?>? then = null)
    {
        var completion = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        var flush = new WriterProtocol.Flush(completion, then);
        if (_order.IsClear)
        {
            SendFlush(flush);
            return completion.Task;
        }

        return FlushAfterPendingAsync(flush);
    }

    /// <inheritdoc />
    /// <remarks>
    /// The unit also waits for the writes made before it that wait for room in the queue bound to be sent: its part
    /// reaches the writer through the coordinator, past that bound, and would otherwise overtake them.
    /// </remarks>
    public Task EnterUnit(Task submitted, Task outcome) => AfterWaitingWritesAsync(_order.EnterUnit(submitted, outcome));

    /// <summary>
    /// Completes once <paramref name="before"/> has (the items the order put before the unit were handed on, each sent
    /// or in the budget's queue) and then every write in the budget's queue was sent; never faults.
    /// </summary>
    private async Task AfterWaitingWritesAsync(Task before)
    {
        await before.ConfigureAwait(false);
        await _budget.WaitingAdmitted().ConfigureAwait(false);
    }

    /// <summary>Fails callers still waiting for room with <see cref="ObjectDisposedException"/>; call after <see cref="CloseAsync"/> completed.</summary>
    public void Dispose() => _budget.Dispose();

    /// <summary>Finishes queued writes, flushes, and stops the writer; later writes and flushes fail with <see cref="ObjectDisposedException"/>.</summary>
    public Task CloseAsync()
    {
        lock (_gate)
        {
            if (_close is null)
            {
                var completion = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                if (_order.IsClear)
                {
                    SendClose(completion);
                    _close = completion.Task;
                }
                else
                {
                    // Writes made before the close that wait for a unit still go in, then the close.
                    _close = CloseAfterPendingAsync(completion);
                }
            }

            return _close;
        }
    }

    private async Task FlushAfterPendingAsync(WriterProtocol.Flush flush)
    {
        try
        {
            await _order.AfterPendingAsync(() => { SendFlush(flush); return Task.CompletedTask; }, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            flush.Complete(e);
        }

        await flush.Completion.Task.ConfigureAwait(false);
    }

    /// <summary>Sends a flush; a flush the closed writer can no longer take fails, and its callback hears it.</summary>
    private void SendFlush(WriterProtocol.Flush flush)
    {
        try
        {
            Send(flush);
        }
        catch (ObjectDisposedException e)
        {
            flush.Complete(e);
        }
    }

    private async Task CloseAfterPendingAsync(TaskCompletionSource<bool> completion)
    {
        await _order.AfterPendingAsync(
            () =>
            {
                lock (_gate)
                {
                    SendClose(completion);
                }

                return Task.CompletedTask;
            },
            CancellationToken.None).ConfigureAwait(false);
        await completion.Task.ConfigureAwait(false);
    }

    private void SendClose(TaskCompletionSource<bool> completion)
    {
        _closeSent = true;
        _writer.Tell(new WriterProtocol.Close(completion));
    }

    /// <summary>
    /// Sends a round's part (<see cref="WriterProtocol.Prepare{TWrite}"/>) in order with the writes sent before it;
    /// false when the writer is closed, and then nothing was sent. Parts bypass the queue bound: the coordinator bounds them.
    /// </summary>
    public bool TrySend(object message)
    {
        lock (_gate)
        {
            if (_closeSent)
            {
                return false;
            }

            _writer.Tell(message);
            return true;
        }
    }

    /// <summary>
    /// Sends a command of the round whose part the writer holds (<see cref="WriterProtocol.Go"/> and the rest): never
    /// refused, since the store closes its writers only once the coordinator has finished every round.
    /// </summary>
    public void Command(object message) => _writer.Tell(message);

    private void Send(object message)
    {
        // Under the lock that Close is sent under, so every message sent before it reaches the writer before it.
        // After it the writer stops, and a message to a stopped actor is dropped: its task would never complete.
        lock (_gate)
        {
            if (_closeSent)
            {
                throw new ObjectDisposedException("store", "The store is closed.");
            }

            _writer.Tell(message);
        }
    }
}
