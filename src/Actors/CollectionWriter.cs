using System.Diagnostics;
using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>
/// The one writer of a collection. It drains what is queued into one commit group, stages each write (the sink
/// checks preconditions, so a rejected write costs no I/O), commits the group off its own turn, and completes
/// the callers' tasks only after the group is durable and published. While a group is being written, the next
/// one gathers, so a group grows with the number of concurrent callers (group commit), up to a byte bound: a group
/// takes queued writes in order while their <see cref="WriterProtocol.Queued{TWrite}.Bytes"/> fit it (always at least one),
/// and the rest wait for the next group; a write the sink says stands alone is a group of its own.
/// </summary>
/// <remarks>
/// <para>Cross-collection rounds: a <see cref="WriterProtocol.Prepare{TWrite}"/> is queued like a write. When a group
/// reaches it, the part is staged as the group's last write and the group is held, answered to the
/// <see cref="UnitCoordinator"/>; <see cref="WriterProtocol.Go"/> commits it (the writes before the part are published
/// and acknowledged, the part is not), <see cref="WriterProtocol.Abort"/> drops the part and commits the rest. After the
/// part is written, the writer takes nothing else until <see cref="WriterProtocol.Decide"/> publishes the part, and
/// nothing until <see cref="WriterProtocol.Resume"/>: no write of this collection is ever checked against, or ordered
/// after, a part whose round might not commit.</para>
/// <para>Failure: a failed commit or flush faults the collection. Every write of the failed group, every queued write
/// and every later write fails with the sink's fault exception; nothing is acknowledged that was not written, and
/// the actor does not restart into silently losing writes. Reopening the store recovers. Anything else that throws on
/// the writer's turn (the sink staging, starting a commit or a flush, publishing a part, a caller's task, the writer
/// itself) faults the collection the same way instead of reaching the supervisor, which would stop the writer with
/// callers still waiting on it (see <see cref="AroundReceive"/>).</para>
/// </remarks>
/// <typeparam name="TWrite">The sink's write type, carried unopened.</typeparam>
/// <typeparam name="TResult">The sink's result type, handed to the caller unopened.</typeparam>
internal sealed partial class CollectionWriter<TWrite, TResult> : ReceiveActor
{
    private readonly ICommitSink<TWrite, TResult> _sink;
    private readonly long _maxGroupBytes;
    private readonly WriterStatus? _status;
    private readonly Queue<WriterProtocol.Queued<TWrite>> _queued = new();
    private readonly List<(WriterProtocol.Append<TWrite, TResult> Append, TResult Result)> _inFlight = new();
    private readonly List<WriterProtocol.Flush> _flushesAfterGroup = new();
    private WriterProtocol.Close? _closing;
    private Exception? _fault;
    private bool _busy;

    /// <summary>A <see cref="WriterProtocol.StartGroup"/> is on its way to this actor.</summary>
    private bool _startPending;

    /// <summary>The round's part staged last in the group, which waits for Go or Abort.</summary>
    private WriterProtocol.Prepare<TWrite>? _held;

    /// <summary>The round's part being written, or written and waiting for its decision.</summary>
    private WriterProtocol.Prepare<TWrite>? _writing;

    /// <summary>The round's part published, waiting for the round to be visible everywhere.</summary>
    private WriterProtocol.Prepare<TWrite>? _parked;

    /// <summary>
    /// Creates the writer over <paramref name="sink"/>, with commit groups of at most <paramref name="maxGroupBytes"/>;
    /// it shows its fault in <paramref name="status"/> when one is given.
    /// </summary>
    public CollectionWriter(ICommitSink<TWrite, TResult> sink, long maxGroupBytes, WriterStatus? status = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxGroupBytes, 1);
        _sink = sink;
        _maxGroupBytes = maxGroupBytes;
        _status = status;
        Receive<WriterProtocol.Append<TWrite, TResult>>(OnAppend);
        Receive<WriterProtocol.Prepare<TWrite>>(OnPrepare);
        Receive<WriterProtocol.Go>(OnGo);
        Receive<WriterProtocol.Abort>(OnAbort);
        Receive<WriterProtocol.Decide>(OnDecide);
        Receive<WriterProtocol.Resume>(OnResume);
        Receive<WriterProtocol.StartGroup>(_ => OnStartGroup());
        Receive<WriterProtocol.GroupCommitted>(_ => OnGroupDone(null));
        Receive<WriterProtocol.GroupFailed>(m => OnGroupDone(m.Cause));
        Receive<WriterProtocol.Flush>(OnFlush);
        Receive<WriterProtocol.Flushed>(OnFlushed);
        Receive<WriterProtocol.Close>(OnClose);
    }

    /// <summary>
    /// Handles <paramref name="message"/>; an exception that escapes its handler faults the collection (see
    /// <see cref="Threw"/>) instead of going to the supervisor. Stopped there, the writer would leave every caller
    /// waiting on it waiting forever, and its collection looking healthy; restarted, it would have forgotten its group.
    /// </summary>
    protected override bool AroundReceive(Receive receive, object message)
    {
        try
        {
            return base.AroundReceive(receive, message);
        }
        catch (Exception e)
        {
            Threw(e);
            return true;
        }
    }

    private void OnAppend(WriterProtocol.Append<TWrite, TResult> append)
    {
        if (_fault is not null || _closing is not null)
        {
            append.Fail(_fault is not null ? _sink.Fault(_fault) : new ObjectDisposedException("store", "The store is closing."));
            return;
        }

        Enqueue(append);
    }

    private void Enqueue(WriterProtocol.Queued<TWrite> queued)
    {
        _queued.Enqueue(queued);
        if (!_busy && !_startPending)
        {
            // Not started at once: the appends already in the mailbox come before this message, so the group gathers
            // them all. A sink may commit a small group on this turn, and then nothing else could gather meanwhile.
            _startPending = true;
            Self.Tell(WriterProtocol.StartGroup.Instance);
        }
    }

    private void OnStartGroup()
    {
        _startPending = false;
        if (!_busy && _queued.Count > 0 && _fault is null)
        {
            StartGroup();
        }
    }

    private void StartGroup()
    {
        // A sink that commits a group on this turn returns a completed task: its outcome is handled here, without
        // the round trip of a message, and the writes still queued form the next group at once.
        while (true)
        {
            Debug.Assert(!_busy && _writing is null && _parked is null, "one group at a time: the last one has its outcome");

            // A group whose every write was rejected commits nothing, so the next writes in the queue form the group.
            while (_inFlight.Count == 0 && _held is null && _queued.Count > 0)
            {
                StageGroup();
            }

            if (_held is not null)
            {
                // The group ends with a round's part: it waits for the coordinator's Go or Abort.
                _busy = true;
                return;
            }

            if (_inFlight.Count == 0)
            {
                RunPendingFlushes();
                return;
            }

            if (!CommitGroup())
            {
                return;
            }
        }
    }

    /// <summary>Commits the staged group; true when it committed on this turn and queued writes should form the next group now.</summary>
    private bool CommitGroup()
    {
        _busy = true;
        var commit = _sink.CommitAsync(_writing is { } part ? PlacedCallback(part) : null);
        if (!commit.IsCompleted)
        {
            commit.ContinueWith(
                static (task, state) => ((IActorRef)state!).Tell(task.IsCompletedSuccessfully
                    ? new WriterProtocol.GroupCommitted()
                    : new WriterProtocol.GroupFailed(FailureOf(task))),
                Self,
                CancellationToken.None,
                TaskContinuationOptions.ExecuteSynchronously,
                TaskScheduler.Default);
            return false;
        }

        return GroupDone(commit.IsCompletedSuccessfully ? null : FailureOf(commit));
    }

    private static Exception FailureOf(Task task) => task.Exception?.GetBaseException() ?? new TaskCanceledException(task);

    /// <summary>Stages the oldest queued writes while they fit the group's byte bound (always at least one).</summary>
    private void StageGroup()
    {
        var taken = 0;
        long bytes = 0;
        var alone = false;

        // Writes that stand alone share a group with one another (indexes declared together are built side by side),
        // never with other writes.
        while (_queued.TryPeek(out var next) && (taken == 0 || (bytes + next.Bytes <= _maxGroupBytes && _sink.StandsAlone(next.Write) == alone)))
        {
            if (taken++ == 0)
            {
                alone = _sink.StandsAlone(next.Write);
            }

            bytes += next.Bytes;

            // Taken off the queue only once staged: a sink that throws instead of answering (a user's key type's hash or
            // comparison, say) leaves the write queued, where the fault fails it with the rest (see Threw).
            var rejection = _sink.Stage(next.Write, out var result);
            _queued.Dequeue();
            if (next is WriterProtocol.Prepare<TWrite> prepare)
            {
                if (rejection is null)
                {
                    // The part ends the group: nothing after it may be checked against a part that might not commit.
                    _held = prepare;
                    prepare.Coordinator.Tell(new UnitProtocol.PartStaged(prepare.Round, prepare.Participant));
                    return;
                }

                RejectPart(prepare, rejection);
                continue;
            }

            var append = (WriterProtocol.Append<TWrite, TResult>)next;
            if (rejection is null)
            {
                _inFlight.Add((append, result));
            }
            else
            {
                append.Fail(rejection);
            }
        }
    }

    private void OnGroupDone(Exception? cause)
    {
        if (GroupDone(cause))
        {
            StartGroup();
        }
    }

    /// <summary>Completes the group in flight with its outcome; true when queued writes should form the next group now.</summary>
    private bool GroupDone(Exception? cause)
    {
        Debug.Assert(_busy && (_inFlight.Count > 0 || _writing is not null), "an outcome comes only for a group in flight, which holds a write or a part");
        _busy = false;
        if (cause is null)
        {
            foreach (var (append, result) in _inFlight)
            {
                append.Succeed(result);
            }
        }
        else
        {
            _sink.Discard();
            FailAll(cause);
        }

        _inFlight.Clear();
        if (_writing is { } part)
        {
            if (cause is null)
            {
                // Written, not visible: nothing else is taken until the round's decision.
                _busy = true;
                part.Coordinator.Tell(new UnitProtocol.PartWritten(part.Round, part.Participant));
                return false;
            }

            _writing = null;
            part.Coordinator.Tell(new UnitProtocol.PartFailed(part.Round, part.Participant, _sink.Fault(_fault!)));
        }

        if (_queued.Count > 0 && _fault is null)
        {
            return true;
        }

        RunPendingFlushes();
        return false;
    }

    /// <summary>
    /// Something threw on the writer's turn instead of answering, <paramref name="cause"/>: the collection faults as a
    /// failed commit faults it. What threw may have left the sink half way, and whatever the group in flight wrote may be
    /// on disk, so nothing is undone here and nothing more is committed: every write staged, queued or waiting for a
    /// flush fails with the sink's fault (outcome uncertain, never "not stored"), and so does a round's part being
    /// written or published, to its coordinator; a close in progress ends. Nothing of the sink is called here but
    /// <see cref="ICommitSink{TWrite,TResult}.Fault"/>; reopening the store recovers what the files hold.
    /// </summary>
    private void Threw(Exception cause)
    {
        FailAll(cause);
        var failure = _sink.Fault(_fault!);
        if (_writing is { } part)
        {
            _writing = null;
            part.Coordinator.Tell(new UnitProtocol.PartFailed(part.Round, part.Participant, failure));
        }

        if (_closing is not null)
        {
            _closing.Completion.TrySetException(failure);
            Context.Stop(Self);
        }
    }

    private void FailAll(Exception cause)
    {
        _fault ??= cause;
        var failure = _sink.Fault(_fault);
        _status?.Faulted(failure);
        foreach (var (append, _) in _inFlight)
        {
            append.Fail(failure);
        }

        _inFlight.Clear();
        FailQueued(failure);
        foreach (var flush in _flushesAfterGroup)
        {
            flush.Complete(failure);
        }

        _flushesAfterGroup.Clear();
    }

    private void FailQueued(Exception failure)
    {
        foreach (var queued in _queued)
        {
            if (queued is WriterProtocol.Prepare<TWrite> prepare)
            {
                RejectPart(prepare, failure);
            }
            else
            {
                ((WriterProtocol.Append<TWrite, TResult>)queued).Fail(failure);
            }
        }

        _queued.Clear();
    }
}
