using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>The writer's flushes and its close: each waits for the group in flight, and the close for every write queued before it.</summary>
internal sealed partial class CollectionWriter<TWrite, TResult>
{
    private void OnFlush(WriterProtocol.Flush flush)
    {
        if (_fault is not null)
        {
            flush.Complete(_sink.Fault(_fault));
            return;
        }

        // A flush covers every write that reached the writer before it: the group in flight, and writes queued for a
        // group whose start is still in the mailbox behind this flush. Those run the flush once their groups are done.
        _flushesAfterGroup.Add(flush);
        if (!_busy && _queued.Count == 0)
        {
            RunPendingFlushes();
        }
    }

    private void RunPendingFlushes()
    {
        if (_flushesAfterGroup.Count == 0 && _closing is null)
        {
            return;
        }

        // The flushes are taken from the list only once the sink has the flush: a sink that throws instead leaves them
        // there, where the fault fails them (see Threw).
        var flushing = _sink.FlushAsync();
        var flushes = _flushesAfterGroup.ToArray();
        _flushesAfterGroup.Clear();
        _busy = true;
        var self = Self;
        flushing.ContinueWith(
            static (task, state) =>
            {
                var (actor, done) = ((IActorRef, WriterProtocol.Flush[]))state!;
                actor.Tell(new WriterProtocol.Flushed(done, task.IsCompletedSuccessfully ? null : task.Exception?.GetBaseException()));
            },
            (self, flushes),
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
    }

    private void OnFlushed(WriterProtocol.Flushed flushed)
    {
        _busy = false;
        if (flushed.Cause is not null)
        {
            FailAll(flushed.Cause);
        }

        var failure = _fault is null ? null : _sink.Fault(_fault);
        foreach (var flush in flushed.Flushes)
        {
            flush.Complete(failure);
        }

        if (_closing is not null && _queued.Count == 0)
        {
            if (failure is null)
            {
                _closing.Completion.TrySetResult(true);
            }
            else
            {
                _closing.Completion.TrySetException(failure);
            }

            Context.Stop(Self);
            return;
        }

        if (_queued.Count > 0 && _fault is null)
        {
            StartGroup();
        }
        else if (_flushesAfterGroup.Count > 0)
        {
            RunPendingFlushes();
        }
    }

    private void OnClose(WriterProtocol.Close close)
    {
        if (_closing is not null)
        {
            _closing.Completion.Task.ContinueWith(t => close.Completion.TrySetResult(t.IsCompletedSuccessfully), TaskScheduler.Default);
            return;
        }

        _closing = close;
        if (_fault is not null)
        {
            FailQueued(_sink.Fault(_fault));
            close.Completion.TrySetResult(true);
            Context.Stop(Self);
            return;
        }

        // Writes queued before Close still go in; writes after it are refused in OnAppend.
        if (!_busy)
        {
            if (_queued.Count > 0)
            {
                StartGroup();
            }
            else
            {
                RunPendingFlushes();
            }
        }
    }
}
