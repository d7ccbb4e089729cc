using System.Diagnostics;
using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>
/// Commits writes that span collections, atomically, through the collections' own writers: it never writes a
/// collection itself. The units queued while a round is in flight form the next round (group commit, as a writer's
/// groups do), and a round runs in three steps, each answered by every participant before the next:
/// <list type="number">
/// <item><b>Stage.</b> Each writer checks its part (every unit's writes to it) against its own state, stages it as the
/// last write of a group, and holds that group. A rejected unit is failed, the round is aborted everywhere, and its
/// other units go again as the next round: nothing of a rejected unit is ever stored.</item>
/// <item><b>Write and decide.</b> Each writer commits its held group; the part's blocks carry the round's tag, and the
/// writer says where they went as soon as they reached the OS, then makes them as durable as the store's mode
/// promises; they are not visible yet. Once every part is placed, the coordinator records the round's decision in the
/// unit log (<see cref="IUnitLog"/>), naming those blocks, while the parts are still being made durable: the
/// decision's fsync and the parts' run at once. The round is committed when the decision and every block it names are
/// on disk; recovery reads those blocks to tell.</item>
/// <item><b>Publish.</b> Once every part is durable and the decision too, each writer publishes its part and waits;
/// once all have, the round becomes visible to store snapshots (<see cref="RoundClock"/>), the callers' tasks
/// complete, and the writers take writes again.</item>
/// </list>
/// </summary>
/// <remarks>
/// Failure: a part that fails to write, or a decision whose record fails, leaves the round's outcome uncertain. Every
/// participant faults (reopening the store resolves the round from what is on disk, never by undoing it here), and the
/// coordinator starts a new session id, so that no later decision can ever cover the uncertain round. A failed
/// decision also faults the coordinator: the unit log's outcome is unknown. A participant that faults publishing its
/// part fails the units with its fault, but the round is committed and the other participants go on. Whatever throws
/// on the coordinator's own turn faults it too, and the round in flight ends as a failed part ends it (see
/// <see cref="AroundReceive"/>).
/// </remarks>
internal sealed class UnitCoordinator : ReceiveActor
{
    /// <summary>The most units one round takes; the rest wait for the next.</summary>
    internal const int MaxUnitsPerRound = 1024;

    private readonly IUnitLog _log;
    private readonly RoundClock _clock;
    private readonly WriterStatus? _status;
    private readonly LinkedList<IUnitWrite> _queued = new();
    private Guid _session = Guid.NewGuid();
    private long _lastRound;
    private UnitRound? _round;
    private Exception? _fault;
    private UnitProtocol.Close? _closing;

    /// <summary>
    /// The round that was staging when the coordinator faulted: its parts that stage after that are dropped, and a close
    /// waits for every part sent to answer, so that no collection is left holding one.
    /// </summary>
    private UnitRound? _abandoned;

    /// <summary>A <see cref="UnitProtocol.StartRound"/> is on its way to this actor.</summary>
    private bool _startPending;

    /// <summary>How many queued units the next round may take (fewer after a round whose units conflicted).</summary>
    private int _nextRoundSize = MaxUnitsPerRound;

    public UnitCoordinator(IUnitLog log, RoundClock clock, WriterStatus? status)
    {
        _log = log;
        _clock = clock;
        _status = status;
        _lastRound = clock.Visible;
        Receive<UnitProtocol.Submit>(OnSubmit);
        Receive<UnitProtocol.StartRound>(_ => OnStartRound());
        Receive<UnitProtocol.PartStaged>(m => OnStaged(m.Round, m.Participant, null));
        Receive<UnitProtocol.PartRejected>(m => OnStaged(m.Round, m.Participant, m.Cause));
        Receive<UnitProtocol.PartPlaced>(OnPlaced);
        Receive<UnitProtocol.PartWritten>(m => OnWritten(m.Round, m.Participant, null));
        Receive<UnitProtocol.PartFailed>(OnFailed);
        Receive<UnitProtocol.Decided>(OnDecided);
        Receive<UnitProtocol.PartPublished>(m => OnPublished(m.Round, null));
        Receive<UnitProtocol.Close>(OnClose);
    }

    /// <summary>
    /// Props for a coordinator recording its decisions in <paramref name="log"/>, and the exception later units fail with
    /// in <paramref name="status"/> once it faults, for health checks.
    /// </summary>
    public static Props Props(IUnitLog log, RoundClock clock, WriterStatus? status = null) =>
        Akka.Actor.Props.Create(() => new UnitCoordinator(log, clock, status));

    /// <summary>
    /// Whatever throws on the coordinator's turn faults it (<see cref="Threw"/>) instead of going to its supervisor,
    /// whose default is a restart: a coordinator started afresh would have forgotten the round in flight, leaving its
    /// callers waiting forever and its participants holding their parts, and every write queued behind them.
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

    private void OnSubmit(UnitProtocol.Submit submit)
    {
        if (_fault is not null || _closing is not null)
        {
            submit.Unit.Complete(_fault ?? new ObjectDisposedException("store", "The store is closing."));
            return;
        }

        _queued.AddLast(submit.Unit);
        if (_round is null && !_startPending)
        {
            // Not started at once: the units already in the mailbox come before this message, so the round gathers
            // them all, as a writer's group does. Started at once, most rounds carried one unit.
            _startPending = true;
            Self.Tell(UnitProtocol.StartRound.Instance);
        }
    }

    private void OnStartRound()
    {
        _startPending = false;
        StartRound();
    }

    private void StartRound()
    {
        if (_round is not null)
        {
            return;
        }

        if (_queued.Count == 0 || _fault is not null)
        {
            FailQueued();
            FinishClosing();
            return;
        }

        var size = _nextRoundSize;
        _nextRoundSize = MaxUnitsPerRound;
        var units = new List<IUnitWrite>(Math.Min(_queued.Count, size));
        while (units.Count < size && _queued.First is { } first)
        {
            _queued.RemoveFirst();
            units.Add(first.Value);
        }

        _round = new UnitRound(++_lastRound, units);
        for (var i = 0; i < _round.Participants.Count; i++)
        {
            _round.Participants[i].Prepare(_session, _round.Number, _round.UnitsOf(i), Self, i);
            _round.Prepared++;
        }
    }

    private void OnStaged(long round, int participant, Exception? rejection)
    {
        if (_abandoned is { } abandoned && abandoned.Number == round)
        {
            // The coordinator faulted while this part was on its way: the part is dropped, as it would be in an abort.
            abandoned.Answered[participant] = true;
            if (rejection is null)
            {
                abandoned.Participants[participant].Tell(new WriterProtocol.Abort(round));
            }

            FinishClosing();
            return;
        }

        if (!IsCurrent(round, UnitRound.Step.Stage))
        {
            return;
        }

        _round!.Answered[participant] = true;
        if (rejection is not null)
        {
            _round!.Reject(participant, rejection);
        }
        else
        {
            _round!.Staged[participant] = true;
        }

        if (--_round.Pending > 0)
        {
            return;
        }

        if (!_round.HasRejections)
        {
            _round.Next(UnitRound.Step.Write);
            TellAll(new WriterProtocol.Go(round));
            return;
        }

        // Nothing was written: the parts that were staged are dropped, the rejected units fail, and the others go
        // again, first in line and in the order they were submitted, checked afresh against states without the rejected
        // ones. A unit that only conflicted with an earlier unit of the round was not rejected: that unit may be rejected
        // elsewhere and store nothing. The next round ends before the first unit that conflicted (it takes that unit
        // alone when no unit comes before it), so that each round makes progress (the first unit of a round never
        // conflicts: no unit comes before it) and no unit is ever stored before one submitted earlier: a later unit that
        // passed may update a key the conflicting one updates too, and it must win.
        for (var i = 0; i < _round.Participants.Count; i++)
        {
            if (_round.Staged[i])
            {
                _round.Participants[i].Tell(new WriterProtocol.Abort(round));
            }
        }

        var done = _round;
        _round = null;
        var retried = 0;
        var beforeConflict = -1;
        for (var i = done.Units.Count - 1; i >= 0; i--)
        {
            if (done.Rejection(i) is null)
            {
                _queued.AddFirst(done.Units[i]);
                retried++;
                if (done.Conflicts(i))
                {
                    beforeConflict = 0;
                }
                else if (beforeConflict >= 0)
                {
                    beforeConflict++;
                }
            }
        }

        Debug.Assert(retried < done.Units.Count || beforeConflict >= 0, "an aborted round fails a unit or holds one that conflicted");
        if (beforeConflict >= 0)
        {
            _nextRoundSize = Math.Max(1, beforeConflict);
        }

        for (var i = 0; i < done.Units.Count; i++)
        {
            if (done.Rejection(i) is { } cause)
            {
                done.Units[i].Complete(cause);
            }
        }

        StartRound();
    }

    private void OnPlaced(UnitProtocol.PartPlaced placed)
    {
        if (!IsCurrent(placed.Round, UnitRound.Step.Write))
        {
            return;
        }

        Debug.Assert(!_round!.Placed[placed.Participant], "a part is placed once");
        _round.Placed[placed.Participant] = true;
        _round.Blocks.AddRange(placed.Blocks);
        if (--_round.Unplaced > 0)
        {
            return;
        }

        // Every part is in the OS: the decision goes to the log now, its fsync alongside the parts'. A log that throws
        // instead of failing the task has failed the decision all the same.
        var self = Self;
        var round = placed.Round;
        Task recording;
        try
        {
            recording = _log.RecordAsync(_session, round, _round.Blocks);
        }
        catch (Exception e)
        {
            recording = Task.FromException(e);
        }

        recording.ContinueWith(
            task => self.Tell(new UnitProtocol.Decided(round, task.IsCompletedSuccessfully ? null : task.Exception?.GetBaseException() ?? new TaskCanceledException(task))),
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
    }

    private void OnWritten(long round, int participant, Exception? failure)
    {
        if (!IsCurrent(round, UnitRound.Step.Write))
        {
            return;
        }

        Debug.Assert(failure is not null || _round!.Placed[participant], "a part says where it went before it is written");
        _round!.Failure ??= failure;
        --_round.Pending;
        FinishWrite();
    }

    private void OnFailed(UnitProtocol.PartFailed failed)
    {
        if (IsCurrent(failed.Round, UnitRound.Step.Publish))
        {
            OnPublished(failed.Round, failed.Cause);
        }
        else
        {
            OnWritten(failed.Round, failed.Participant, failed.Cause);
        }
    }

    private void OnDecided(UnitProtocol.Decided decided)
    {
        if (!IsCurrent(decided.Round, UnitRound.Step.Write))
        {
            return;
        }

        _round!.Decided = true;
        _round.DecisionFailure = decided.Failure;
        FinishWrite();
    }

    /// <summary>
    /// Ends the write step once every part has its outcome, and, when all were written, the decision too: publishes the
    /// round, or fails it as uncertain. A part's failure does not wait for the decision, which may or may not reach the
    /// disk; recovery decides the round from the blocks it names, and the new session keeps later decisions off it.
    /// </summary>
    private void FinishWrite()
    {
        var round = _round!;
        if (round.Pending > 0)
        {
            return;
        }

        if (round.Failure is not null)
        {
            // A part may or may not be on disk, and so may the round's own decision, if every part was placed: recovery
            // settles the round from the blocks that decision names. The session ends here, so no later decision covers it.
            _session = Guid.NewGuid();
            Fail(round.Failure);
            return;
        }

        if (!round.Decided)
        {
            return;
        }

        if (round.DecisionFailure is { } failure)
        {
            // The decision may be on disk or not; the unit log is faulted, and with it every later round.
            Faulted(failure);
            Fail(failure);
            return;
        }

        round.Next(UnitRound.Step.Publish);
        TellAll(new WriterProtocol.Decide(round.Number, null));
    }

    /// <summary>
    /// A participant published its part, or faulted publishing it (<paramref name="failure"/>). The round is committed
    /// either way (its decision and every part are durable), so it is made visible and the other participants go on;
    /// the units fail with the fault, since one collection cannot say what it shows of them until the store is reopened.
    /// </summary>
    private void OnPublished(long round, Exception? failure)
    {
        if (!IsCurrent(round, UnitRound.Step.Publish))
        {
            return;
        }

        _round!.Failure ??= failure;
        if (--_round.Pending > 0)
        {
            return;
        }

        var done = _round;
        _round = null;
        _clock.MakeVisible(round);
        foreach (var unit in done.Units)
        {
            unit.Complete(done.Failure);
        }

        TellAll(done, new WriterProtocol.Resume(round));
        StartRound();
    }

    private void OnClose(UnitProtocol.Close close)
    {
        if (_closing is not null)
        {
            _closing.Completion.Task.ContinueWith(_ => close.Completion.TrySetResult(true), TaskScheduler.Default);
            return;
        }

        _closing = close;
        if (_round is null)
        {
            StartRound();
        }
    }

    /// <summary>
    /// Something threw on the coordinator's turn, <paramref name="cause"/>, and may have left it half way: it faults, so
    /// every unit queued or submitted later fails, and the round in flight ends as if a part had failed at its step.
    /// Staging, nothing was written: its units fail at once and every part sent is dropped, now or, if it has not staged
    /// yet, when it says it has. Writing, every participant faults once its part has an outcome (the round's decision may
    /// or may not reach the disk, and the new session keeps later decisions off it). Publishing, the round is committed
    /// and its units fail with the fault, as when a participant faults publishing. Nothing is undone here.
    /// </summary>
    private void Threw(Exception cause)
    {
        var failure = new IOException(
            $"Writes across collections failed: their coordinator threw ({cause.Message}). A write across collections in " +
            "flight may or may not be stored (reopening the store settles it); later ones are refused until the store is reopened.",
            cause);
        Faulted(failure);
        _session = Guid.NewGuid();
        if (_round is not { } round)
        {
            StartRound();
            return;
        }

        if (round.Current != UnitRound.Step.Stage)
        {
            round.Failure ??= _fault;
            return;
        }

        _round = null;
        _abandoned = round;
        for (var i = 0; i < round.Prepared; i++)
        {
            round.Participants[i].Tell(new WriterProtocol.Abort(round.Number));
        }

        foreach (var unit in round.Units)
        {
            unit.Complete(_fault);
        }

        StartRound();
    }

    /// <summary>Refuses every later unit with <paramref name="failure"/>, or with the fault before it, and shows it in the status.</summary>
    private void Faulted(Exception failure)
    {
        _fault ??= failure;
        _status?.Faulted(_fault);
    }

    /// <summary>Ends the round in flight with an uncertain outcome: every participant faults, and so does every unit.</summary>
    private void Fail(Exception cause)
    {
        var done = _round!;
        _round = null;
        TellAll(done, new WriterProtocol.Decide(done.Number, cause));
        foreach (var unit in done.Units)
        {
            unit.Complete(cause);
        }

        StartRound();
    }

    private void FailQueued()
    {
        if (_fault is null)
        {
            return;
        }

        while (_queued.First is { } first)
        {
            _queued.RemoveFirst();
            first.Value.Complete(_fault);
        }
    }

    private void FinishClosing()
    {
        Debug.Assert(_round is null && (_queued.Count == 0 || _fault is not null), "closing waits for every queued unit");
        if (_closing is not null && !AwaitsAbandonedParts())
        {
            _closing.Completion.TrySetResult(true);
            Context.Stop(Self);
        }
    }

    /// <summary>Whether a part sent in the round abandoned at the fault has not answered yet (and would be held if it staged).</summary>
    private bool AwaitsAbandonedParts() =>
        _abandoned is { } abandoned && Array.IndexOf(abandoned.Answered, false, 0, abandoned.Prepared) >= 0;

    private bool IsCurrent(long round, UnitRound.Step step) => _round is not null && _round.Number == round && _round.Current == step;

    private void TellAll(object command) => TellAll(_round!, command);

    private static void TellAll(UnitRound round, object command)
    {
        foreach (var participant in round.Participants)
        {
            participant.Tell(command);
        }
    }
}
