using System.Diagnostics;

namespace Stellar.Store.Actors;

/// <summary>
/// The caller-side bound of one writer: at most a number of writes, and of bytes, admitted and not yet finished.
/// A caller over the bound waits asynchronously; callers are admitted first come, first served, and each admission
/// runs its action (sending the write) under the budget's lock, so writes reach the writer in the order they were
/// submitted even when they had to wait. A write larger than the byte bound is admitted once no bytes are admitted,
/// so it waits its turn but never forever.
/// </summary>
/// <remarks>
/// Thread safety: every member may be called from any thread. The admitted action runs under the lock and must be
/// short and must not block (a <c>Tell</c>); waiters are completed outside it.
/// </remarks>
internal sealed class WriteBudget : IDisposable
{
    private readonly object _gate = new();
    private readonly LinkedList<Waiter> _waiters = new();
    private readonly int _maxWrites;
    private readonly long _maxBytes;
    private int _writes;
    private long _bytes;
    private long _peakBytes;
    private bool _disposed;

    public WriteBudget(int maxWrites, long maxBytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxWrites, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxBytes, 1);
        _maxWrites = maxWrites;
        _maxBytes = maxBytes;
    }

    /// <summary>Writes admitted and not yet released.</summary>
    public int QueuedWrites
    {
        get
        {
            lock (_gate)
            {
                return _writes;
            }
        }
    }

    /// <summary>Bytes admitted and not yet released.</summary>
    public long QueuedBytes
    {
        get
        {
            lock (_gate)
            {
                return _bytes;
            }
        }
    }

    /// <summary>The most bytes ever admitted at once.</summary>
    public long PeakQueuedBytes
    {
        get
        {
            lock (_gate)
            {
                return _peakBytes;
            }
        }
    }

    /// <summary>Callers waiting to be admitted.</summary>
    public int Waiting
    {
        get
        {
            lock (_gate)
            {
                return _waiters.Count;
            }
        }
    }

    /// <summary>
    /// Admits a write of <paramref name="bytes"/> as soon as it fits, then runs <paramref name="admitted"/> with
    /// <paramref name="state"/> (a static or long-lived delegate and the write's own state, so that a write admitted at
    /// once allocates nothing here). If that throws, the write's share is given back and the task fails with its
    /// exception. <paramref name="cancellationToken"/> is honoured only while the write waits.
    /// </summary>
    public Task AdmitAsync(long bytes, Action<object?> admitted, object? state, CancellationToken cancellationToken)
    {
        LinkedListNode<Waiter> node;
        try
        {
            ArgumentOutOfRangeException.ThrowIfNegative(bytes);
            lock (_gate)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                if (_waiters.Count == 0 && Fits(bytes))
                {
                    Take(bytes);
                    try
                    {
                        admitted(state);
                    }
                    catch
                    {
                        Give(bytes);
                        throw;
                    }

                    return Task.CompletedTask;
                }

                cancellationToken.ThrowIfCancellationRequested();
                node = _waiters.AddLast(new Waiter(bytes, admitted, state));
            }
        }
        catch (OperationCanceledException e) when (e.CancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled(e.CancellationToken);
        }
        catch (Exception e)
        {
            return Task.FromException(e);
        }

        return WaitAsync(node, cancellationToken);
    }

    /// <summary>
    /// The wait of a write that did not fit (<paramref name="node"/>), apart from <see cref="AdmitAsync"/>, so that the
    /// state its cancellation captures is made only when a write waits.
    /// </summary>
    private async Task WaitAsync(LinkedListNode<Waiter> node, CancellationToken cancellationToken)
    {
        // Registered outside the lock (a token cancelled meanwhile runs Cancel at once), and disposed by the waiter
        // itself once it is done: disposing waits for a running callback, which takes the lock.
        using (cancellationToken.Register(() => Cancel(node, cancellationToken)))
        {
            await node.Value.Completion.Task.ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Completes once every caller waiting now has been admitted (its action run) or gave up (cancelled, or failed by
    /// <see cref="Dispose"/>); never faults. Callers that start waiting later are not waited for.
    /// </summary>
    public Task WaitingAdmitted()
    {
        Task[] waiting;
        lock (_gate)
        {
            if (_waiters.Count == 0)
            {
                return Task.CompletedTask;
            }

            waiting = _waiters.Select(w => w.Completion.Task).ToArray();
        }

        return Task.WhenAll(waiting).ContinueWith(static _ => { }, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    /// <summary>Gives back the share of a write admitted with <paramref name="bytes"/>, admitting whoever now fits.</summary>
    public void Release(long bytes)
    {
        List<(Waiter Waiter, Exception? Failure)>? done;
        lock (_gate)
        {
            Give(bytes);
            done = AdmitWaiters();
        }

        Complete(done);
    }

    /// <summary>Fails every waiting caller with <see cref="ObjectDisposedException"/>; later calls fail the same way.</summary>
    public void Dispose()
    {
        List<(Waiter Waiter, Exception? Failure)> done = new();
        lock (_gate)
        {
            _disposed = true;
            foreach (var waiter in _waiters)
            {
                done.Add((waiter, new ObjectDisposedException("store", "The store is closed.")));
            }

            _waiters.Clear();
        }

        Complete(done);
    }

    // An oversized write goes in alone, when no bytes are admitted, so it cannot wait forever.
    private bool Fits(long bytes) => _writes < _maxWrites && (_bytes == 0 || _bytes + bytes <= _maxBytes);

    private void Take(long bytes)
    {
        _writes++;
        _bytes += bytes;
        _peakBytes = Math.Max(_peakBytes, _bytes);
    }

    private void Give(long bytes)
    {
        _writes--;
        _bytes -= bytes;
        Debug.Assert(_writes >= 0 && _bytes >= 0, "a write's share is given back once, after it was taken");
    }

    /// <summary>Admits waiters in order while the first one fits (under the lock); null when none was waiting to.</summary>
    private List<(Waiter Waiter, Exception? Failure)>? AdmitWaiters()
    {
        List<(Waiter, Exception?)>? done = null;
        while (_waiters.First is { } first && Fits(first.Value.Bytes))
        {
            _waiters.RemoveFirst();
            var waiter = first.Value;
            Take(waiter.Bytes);
            try
            {
                waiter.Admitted(waiter.State);
                (done ??= new()).Add((waiter, null));
            }
            catch (Exception e)
            {
                Give(waiter.Bytes);
                (done ??= new()).Add((waiter, e));
            }
        }

        return done;
    }

    private void Cancel(LinkedListNode<Waiter> node, CancellationToken cancellationToken)
    {
        List<(Waiter Waiter, Exception? Failure)>? done;
        lock (_gate)
        {
            if (node.List is null)
            {
                return; // admitted (or failed) already: the cancellation came too late to matter
            }

            _waiters.Remove(node);

            // The cancelled waiter may have been the one holding the others back.
            done = AdmitWaiters();
        }

        node.Value.Completion.TrySetCanceled(cancellationToken);
        Complete(done);
    }

    // Outside the lock, so that no continuation or callback runs under it.
    private static void Complete(List<(Waiter Waiter, Exception? Failure)>? done)
    {
        if (done is null)
        {
            return;
        }

        foreach (var (waiter, failure) in done)
        {
            if (failure is null)
            {
                waiter.Completion.TrySetResult();
            }
            else
            {
                waiter.Completion.TrySetException(failure);
            }
        }
    }

    private sealed class Waiter(long bytes, Action<object?> admitted, object? state)
    {
        public long Bytes { get; } = bytes;

        public Action<object?> Admitted { get; } = admitted;

        public object? State { get; } = state;

        public TaskCompletionSource Completion { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }
}
