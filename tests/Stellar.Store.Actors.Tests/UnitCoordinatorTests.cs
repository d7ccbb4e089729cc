using Akka.Actor;
using Akka.TestKit.Xunit2;

namespace Stellar.Store.Actors.Tests;

/// <summary>The coordinator of cross-collection rounds with the real writers, over sinks that take parts.</summary>
public sealed class UnitCoordinatorTests : TestKit
{
    private static readonly TimeSpan Hang = TimeSpan.FromMinutes(1);
    private readonly MemoryUnitLog _log = new();
    private readonly IActorRef _coordinator;

    private readonly WriterStatus _status = new();

    public UnitCoordinatorTests() => _coordinator = Sys.ActorOf(UnitCoordinator.Props(_log, new RoundClock(), _status));

    [Fact]
    public async Task Round_WhenOneUnitIsRejected_FailsOnlyItAndCommitsTheOthersInTheNextRound()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        await p2.Writer.SubmitAsync(new SetWrite(5), CancellationToken.None);

        // Round 1 is held in its write, so the next two units queue behind it and form round 2 together.
        sink1.Gate = new TaskCompletionSource();
        var first = Submit(new SetUnit((p1, [100]), (p2, [100])));
        await AwaitConditionAsync(() => Task.FromResult(sink1.CommitsStarted > 0));
        var rejected = Submit(new SetUnit((p1, [1]), (p2, [5])));
        var other = Submit(new SetUnit((p1, [2]), (p2, [6])));
        sink1.Gate.SetResult();

        await first.WaitAsync(Hang);
        await other.WaitAsync(Hang);
        var failure = await Assert.ThrowsAsync<InvalidOperationException>(() => rejected.WaitAsync(Hang));
        Assert.Contains("duplicate", failure.Message);
        Assert.Equal(new[] { 2, 100 }, sink1.Published.Order());
        Assert.Equal(new[] { 5, 6, 100 }, sink2.Published.Order());

        // Round 2 was aborted, never decided; its other unit committed in round 3.
        Assert.Equal(new long[] { 1, 3 }, _log.Decisions.Select(d => d.Round));
    }

    [Fact]
    public async Task Round_WhenAUnitConflictsWithARejectedOne_CommitsItBeforeTheUnitsSubmittedAfterIt()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        var (sink3, p3) = Participant();
        await p1.Writer.SubmitAsync(new SetWrite(5), CancellationToken.None);

        // Round 1 is held in its write, so the next three units queue behind it and form round 2 together.
        sink1.Gate = new TaskCompletionSource();
        var first = Submit(new SetUnit((p1, [100]), (p2, [100])));
        await AwaitConditionAsync(() => Task.FromResult(sink1.CommitsStarted > 0));

        // The first is rejected (p1 holds 5); the second conflicts with it in p2 only (both add 7), so it is no rejection;
        // the third passes everywhere. Issued in this order, the second must be stored before the third.
        var rejected = Submit(new SetUnit((p1, [5]), (p2, [7])));
        var conflicted = Submit(new SetUnit((p2, [7]), (p3, [10])));
        var later = Submit(new SetUnit((p1, [11]), (p3, [11])));
        sink1.Gate.SetResult();

        await first.WaitAsync(Hang);
        await Assert.ThrowsAsync<InvalidOperationException>(() => rejected.WaitAsync(Hang));
        await conflicted.WaitAsync(Hang);
        await later.WaitAsync(Hang);
        Assert.Equal(new[] { 7, 100 }, sink2.Published.Order());

        // Independent oracle: the order the units were submitted in. p3's commits name the keys in the order they were stored.
        var stored = sink3.Log.Where(l => l.StartsWith("commit", StringComparison.Ordinal))
            .SelectMany(l => l.Split(' ', ',').Where(w => int.TryParse(w, out _)).Select(int.Parse)).ToList();
        Assert.Equal(new[] { 10, 11 }, stored);
    }

    [Fact]
    public async Task Unit_AfterAWriteThatWaitsForRoomInTheQueue_GoesToTheWriterOnlyAfterThatWrite()
    {
        var (sink1, p1) = Participant(maxQueued: 1);
        var (_, p2) = Participant();

        // The first write holds the handle's only place (its commit is held at the gate); the second waits for room.
        sink1.Gate = new TaskCompletionSource();
        var first = p1.Writer.SubmitAsync(new SetWrite(1), CancellationToken.None);
        await AwaitConditionAsync(() => Task.FromResult(sink1.CommitsStarted > 0));
        var second = p1.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None);

        // A unit made after both, entered as the store enters one: it goes to the coordinator once what came before it
        // was sent to the writer. A round's part bypasses the queue bound, so it may not go while the second write waits.
        var unit = new SetUnit((p1, [3]), (p2, [3]));
        var submitted = new TaskCompletionSource();
        var before = p1.Writer.EnterUnit(submitted.Task, unit.Completion.ContinueWith(_ => { }, TaskScheduler.Default));
        Assert.False(before.IsCompleted, "the unit may go to the coordinator while a write made before it waits for room");
        var handedOn = before.ContinueWith(
            _ =>
            {
                Submit(unit);
                submitted.SetResult();
            },
            TaskScheduler.Default);
        sink1.Gate.SetResult();

        await handedOn.WaitAsync(Hang);
        Assert.Equal(new[] { 1, 2 }, await Task.WhenAll(first, second).WaitAsync(Hang));
        await unit.Completion.WaitAsync(Hang);

        // Independent oracle: the order the writes and the unit were made in.
        var stored = sink1.Log.Where(l => l.StartsWith("commit", StringComparison.Ordinal))
            .SelectMany(l => l.Split(' ', ',').Where(w => int.TryParse(w, out _)).Select(int.Parse)).ToList();
        Assert.Equal(new[] { 1, 2, 3 }, stored);
    }

    [Fact]
    public async Task Round_WhenAPartFailsToWrite_FaultsEveryParticipantFailsTheUnitAndLaterDecisionsUseANewSession()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        var (_, p3) = Participant();
        var (_, p4) = Participant();
        await Submit(new SetUnit((p3, [1]), (p4, [1]))).WaitAsync(Hang);

        sink1.FailCommits = true;
        var failure = await Assert.ThrowsAsync<InvalidOperationException>(() => Submit(new SetUnit((p1, [1]), (p2, [1]))).WaitAsync(Hang));
        Assert.Equal("faulted", failure.Message);

        // Both collections are faulted, the one whose part was written too: its outcome is not known.
        sink1.FailCommits = false;
        await Assert.ThrowsAsync<InvalidOperationException>(() => p1.Writer.SubmitAsync(new SetWrite(7), CancellationToken.None).WaitAsync(Hang));
        await Assert.ThrowsAsync<InvalidOperationException>(() => p2.Writer.SubmitAsync(new SetWrite(7), CancellationToken.None).WaitAsync(Hang));
        Assert.DoesNotContain(1, sink2.Published);

        // Other collections go on, under a session no decision of the uncertain round's session can be mistaken for.
        await Submit(new SetUnit((p3, [2]), (p4, [2]))).WaitAsync(Hang);
        var decisions = _log.Decisions.ToArray();
        Assert.Equal(2, decisions.Length);
        Assert.NotEqual(decisions[0].Session, decisions[1].Session);
    }

    [Fact]
    public async Task Round_RecordsItsDecisionWhileAPartIsStillBeingMadeDurable_NamingEveryPartsBlock_AndPublishesOnlyOnceBothAre()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        sink1.SyncGate = new TaskCompletionSource();
        var unit = Submit(new SetUnit((p1, [1]), (p2, [1])));

        // sink1's part reached the OS and waits for its fsync; the decision does not wait for that fsync.
        await AwaitConditionAsync(() => Task.FromResult(!_log.Decisions.IsEmpty));
        var decision = Assert.Single(_log.Decisions);
        Assert.Equal(1, decision.Round);
        Assert.Equal(new[] { sink1.Id, sink2.Id }, decision.Parts.Select(p => p.Collection).Order());
        Assert.False(unit.IsCompleted);
        Assert.DoesNotContain(1, sink1.Published);
        Assert.DoesNotContain(1, sink2.Published);

        sink1.SyncGate.SetResult();
        await unit.WaitAsync(Hang);
        Assert.Contains(1, sink1.Published);
        Assert.Contains(1, sink2.Published);
    }

    [Fact]
    public async Task Round_WhoseDecisionIsSlowerThanItsParts_PublishesNothingUntilTheDecisionIsDurable()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        _log.Gate = new TaskCompletionSource();
        var unit = Submit(new SetUnit((p1, [1]), (p2, [1])));

        await AwaitConditionAsync(() => Task.FromResult(!_log.Decisions.IsEmpty && sink1.Log.Any(l => l.Contains("part 1")) && sink2.Log.Any(l => l.Contains("part 1"))));
        Assert.False(unit.IsCompleted);
        Assert.DoesNotContain(1, sink1.Published);
        Assert.DoesNotContain(1, sink2.Published);

        _log.Gate.SetResult();
        await unit.WaitAsync(Hang);
        Assert.Contains(1, sink1.Published);
        Assert.Contains(1, sink2.Published);
    }

    [Fact]
    public async Task Round_WhenAPartsFsyncFailsAfterItsDecisionWasRecorded_FaultsEveryParticipantAndLaterDecisionsUseANewSession()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        var (_, p3) = Participant();
        var (_, p4) = Participant();
        sink1.FailSyncs = true;

        // The decision went to the log while the part was being synced; the part's outcome is unknown, so the unit's is.
        var failure = await Assert.ThrowsAsync<InvalidOperationException>(() => Submit(new SetUnit((p1, [1]), (p2, [1]))).WaitAsync(Hang));
        Assert.Equal("faulted", failure.Message);
        Assert.Single(_log.Decisions);
        Assert.DoesNotContain(1, sink2.Published);
        sink1.FailSyncs = false;
        await Assert.ThrowsAsync<InvalidOperationException>(() => p1.Writer.SubmitAsync(new SetWrite(7), CancellationToken.None).WaitAsync(Hang));
        await Assert.ThrowsAsync<InvalidOperationException>(() => p2.Writer.SubmitAsync(new SetWrite(7), CancellationToken.None).WaitAsync(Hang));

        await Submit(new SetUnit((p3, [2]), (p4, [2]))).WaitAsync(Hang);
        var decisions = _log.Decisions.ToArray();
        Assert.Equal(2, decisions.Length);
        Assert.NotEqual(decisions[0].Session, decisions[1].Session);
    }

    [Fact]
    public async Task Round_WhenTheDecisionFails_FaultsItsParticipantsAndRefusesLaterUnits()
    {
        var (sink1, p1) = Participant();
        var (_, p2) = Participant();
        var (sink3, p3) = Participant();
        var (_, p4) = Participant();
        _log.Fail = true;

        await Assert.ThrowsAsync<IOException>(() => Submit(new SetUnit((p1, [1]), (p2, [1]))).WaitAsync(Hang));
        Assert.DoesNotContain(1, sink1.Published);
        await Assert.ThrowsAsync<InvalidOperationException>(() => p1.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None).WaitAsync(Hang));
        await Assert.ThrowsAsync<InvalidOperationException>(() => p2.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None).WaitAsync(Hang));

        Assert.IsType<IOException>(_status.Fault);

        // The unit log's state is unknown: no later unit is decided, and nothing of one is written.
        _log.Fail = false;
        await Assert.ThrowsAsync<IOException>(() => Submit(new SetUnit((p3, [1]), (p4, [1]))).WaitAsync(Hang));
        Assert.Empty(sink3.Published);
        Assert.Empty(_log.Decisions);
    }

    [Fact]
    public async Task Round_WhenTheLogThrowsInsteadOfFailingItsTask_FaultsItsParticipantsAndRefusesLaterUnits()
    {
        var (sink1, p1) = Participant();
        var (_, p2) = Participant();
        _log.ThrowsAtCall = true;

        // Every part was written; whether the decision was is not known to the coordinator: as for a failed decision.
        var failure = await Answered.FailureAsync(Submit(new SetUnit((p1, [1]), (p2, [1]))), "a unit whose decision's call threw");
        Assert.Equal("log refused the call", failure.Message);
        Assert.DoesNotContain(1, sink1.Published);
        Assert.Equal("faulted", (await Answered.FailureAsync(p1.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None), "a write after the fault")).Message);
        Assert.Equal("faulted", (await Answered.FailureAsync(p2.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None), "a write after the fault")).Message);

        _log.ThrowsAtCall = false;
        var (_, p3) = Participant();
        var (_, p4) = Participant();
        Assert.Same(failure, await Answered.FailureAsync(Submit(new SetUnit((p3, [1]), (p4, [1]))), "a unit after the fault"));
        Assert.Empty(_log.Decisions);
    }

    [Fact]
    public async Task Round_WhenTheCoordinatorThrowsStagingIt_FailsTheUnitReleasesEveryCollectionAndRefusesLaterUnits()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        var (sink3, p3) = Participant();
        p2.PrepareThrows = true;

        // p1 was sent its part before p2's threw on the coordinator's turn; p3 never was. A coordinator restarted from
        // scratch would have forgotten the round: its caller waiting, and p1 holding its part (and every write after it).
        var failure = await Answered.FailureAsync(Submit(new SetUnit((p1, [1]), (p2, [1]), (p3, [1]))), "a unit whose round threw");
        Assert.IsType<IOException>(failure);
        Assert.Equal("prepare threw", failure.InnerException?.Message);
        Assert.Same(failure, _status.Fault);

        // Nothing of the unit was written, so no collection faulted: each takes writes again, the unit's key among them
        // (a duplicate, had the part been stored).
        Assert.Equal(1, await Answered.ResultAsync(p1.Writer.SubmitAsync(new SetWrite(1), CancellationToken.None), "a write to the collection that held a part"));
        Assert.Equal(1, await Answered.ResultAsync(p3.Writer.SubmitAsync(new SetWrite(1), CancellationToken.None), "a write to a collection never sent its part"));
        Assert.Equal(new[] { 1 }, sink1.Published);
        Assert.Empty(sink2.Published);
        Assert.Equal(new[] { 1 }, sink3.Published);
        Assert.Empty(_log.Decisions);

        // What went wrong on its turn may have left the coordinator half way: later units are refused, and a close ends.
        p2.PrepareThrows = false;
        Assert.Same(failure, await Answered.FailureAsync(Submit(new SetUnit((p1, [2]), (p3, [2]))), "a unit after the fault"));
        var closed = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        _coordinator.Tell(new UnitProtocol.Close(closed));
        await closed.Task.WaitAsync(Hang);
    }

    [Fact]
    public async Task Close_AfterTheCoordinatorThrewStaging_WaitsForAPartStillOnItsWaySoThatNoCollectionIsLeftHoldingIt()
    {
        var (sink1, p1) = Participant();
        var (_, p2) = Participant();

        // p1's writer commits a single write, held at the gate, so the round's part waits in its queue behind it.
        sink1.Gate = new TaskCompletionSource();
        var single = p1.Writer.SubmitAsync(new SetWrite(7), CancellationToken.None);
        await AwaitConditionAsync(() => Task.FromResult(sink1.CommitsStarted > 0));
        p2.PrepareThrows = true;
        await Answered.FailureAsync(Submit(new SetUnit((p1, [1]), (p2, [1]))), "a unit whose round threw");

        // The store closes the coordinator before its writers: a coordinator gone before p1's part staged would leave p1
        // holding it, and p1's close (the store's dispose) waiting forever.
        var closed = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        _coordinator.Tell(new UnitProtocol.Close(closed));
        sink1.Gate.SetResult();
        Assert.Equal(7, await Answered.ResultAsync(single, "the write ahead of the part"));
        await closed.Task.WaitAsync(Hang);
        await p1.Writer.CloseAsync().WaitAsync(Hang);
        Assert.Equal(new[] { 7 }, sink1.Published);
    }

    [Fact]
    public async Task Round_WhenTheCoordinatorThrowsWhileItsPartsAreWritten_FaultsEveryParticipantAsUncertainAndRefusesLaterUnits()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        sink1.ThrowsAt = "placed";

        // The coordinator throws reading where p1's part went: the parts may be on disk, the decision is never recorded.
        var failure = await Answered.FailureAsync(Submit(new SetUnit((p1, [1]), (p2, [1]))), "a unit whose round threw");
        Assert.IsType<IOException>(failure);
        Assert.Equal("blocks unreadable", failure.InnerException?.Message);
        Assert.Empty(_log.Decisions);
        Assert.DoesNotContain(1, sink1.Published);
        Assert.DoesNotContain(1, sink2.Published);

        // Each collection cannot tell whether its part counts, so both fault rather than go on as if they knew.
        Assert.Equal("faulted", (await Answered.FailureAsync(p1.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None), "a write after the fault")).Message);
        Assert.Equal("faulted", (await Answered.FailureAsync(p2.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None), "a write after the fault")).Message);
        var (_, p3) = Participant();
        var (_, p4) = Participant();
        Assert.Same(failure, await Answered.FailureAsync(Submit(new SetUnit((p3, [1]), (p4, [1]))), "a unit after the fault"));
        var closed = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        _coordinator.Tell(new UnitProtocol.Close(closed));
        await closed.Task.WaitAsync(Hang);
    }

    [Fact]
    public async Task Round_WhenAWriterThrowsPublishingItsPart_FailsTheUnitAsUncertainFaultsThatCollectionAndTheOthersGoOn()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        sink1.ThrowsAt = "publish";

        // The round was decided and every part written: its caller hears "faulted, outcome uncertain", never "not stored".
        var failure = await Answered.FailureAsync(Submit(new SetUnit((p1, [1]), (p2, [1]))), "a unit whose publish threw");
        Assert.Equal("faulted", failure.Message);
        Assert.Equal("publish threw", failure.InnerException?.Message);
        Assert.Equal(1, Assert.Single(_log.Decisions).Round);

        // The other collection published the round and takes writes again; the one that threw refuses them.
        Assert.Contains(1, sink2.Published);
        Assert.Equal(2, await Answered.ResultAsync(p2.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None), "a write to the other collection"));
        Assert.Equal("faulted", (await Answered.FailureAsync(p1.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None), "a write after the fault")).Message);
        Assert.Equal("faulted", (await Answered.FailureAsync(Submit(new SetUnit((p1, [3]), (p2, [3]))), "a unit after the fault")).Message);
        Assert.DoesNotContain(3, sink2.Published);
    }

    [Fact]
    public async Task Round_WhenAWriterThrowsEndingAVisibleRound_CompletesTheUnitAndFaultsThatCollection()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();
        sink1.ThrowsAt = "end";

        // The round is published in both and visible: the unit succeeds; the writer throws after, ending it.
        await Submit(new SetUnit((p1, [1]), (p2, [1]))).WaitAsync(Hang);
        Assert.Contains(1, sink1.Published);
        Assert.Contains(1, sink2.Published);
        await AwaitConditionAsync(() => Task.FromResult(sink2.Log.Contains("end 1")));

        var failure = await Answered.FailureAsync(p1.Writer.SubmitAsync(new SetWrite(3), CancellationToken.None), "a write after the fault");
        Assert.Equal("faulted", failure.Message);
        Assert.Equal("end threw", failure.InnerException?.Message);
        Assert.Equal(3, await Answered.ResultAsync(p2.Writer.SubmitAsync(new SetWrite(3), CancellationToken.None), "a write to the other collection"));
    }

    [Fact]
    public async Task Round_WhenAWriterThrowsDroppingAnAbortedPart_FailsTheUnitWithItsRejectionAndFaultsThatCollection()
    {
        var (sink1, p1) = Participant();
        var (_, p2) = Participant();
        await p2.Writer.SubmitAsync(new SetWrite(5), CancellationToken.None).WaitAsync(Hang);
        sink1.ThrowsAt = "unstage";

        // p2 rejects the unit, so p1 drops its staged part, and throws doing it. Nothing was written: the rejection stands.
        var rejected = await Answered.FailureAsync(Submit(new SetUnit((p1, [1]), (p2, [5]))), "a rejected unit");
        Assert.Contains("duplicate", rejected.Message);
        var failure = await Answered.FailureAsync(p1.Writer.SubmitAsync(new SetWrite(2), CancellationToken.None), "a write after the fault");
        Assert.Equal("faulted", failure.Message);
        Assert.Equal("unstage threw", failure.InnerException?.Message);
        Assert.Empty(sink1.Published);
    }

    [Fact]
    public async Task Close_WhileARoundIsInFlight_CompletesOnlyAfterTheRoundAndRefusesLaterUnits()
    {
        var (sink1, p1) = Participant();
        var (_, p2) = Participant();
        sink1.Gate = new TaskCompletionSource();
        var unit = Submit(new SetUnit((p1, [1]), (p2, [1])));
        await AwaitConditionAsync(() => Task.FromResult(sink1.CommitsStarted > 0));

        var closed = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        var unitDoneAtClose = closed.Task.ContinueWith(_ => unit.IsCompletedSuccessfully && !_log.Decisions.IsEmpty, TaskScheduler.Default);
        _coordinator.Tell(new UnitProtocol.Close(closed));
        var late = Submit(new SetUnit((p1, [2]), (p2, [2])));
        sink1.Gate.SetResult();

        await closed.Task.WaitAsync(Hang);
        Assert.True(await unitDoneAtClose, "the close completed before the round in flight was decided and completed");
        await Assert.ThrowsAsync<ObjectDisposedException>(() => late.WaitAsync(Hang));
        Assert.DoesNotContain(2, sink1.Published);
    }

    [Fact]
    public async Task Writer_SingleWritesQueuedBehindAHeldPart_WaitForTheRoundThenCommitInOrder()
    {
        var (sink1, p1) = Participant();
        var (sink2, p2) = Participant();

        // p1 writes its part; p2 is held in its write, so the round waits and p1 holds its written part.
        sink2.Gate = new TaskCompletionSource();
        var unit = Submit(new SetUnit((p1, [1]), (p2, [1])));
        await AwaitConditionAsync(() => Task.FromResult(sink1.Log.Any(l => l.Contains("part 1")) && sink2.CommitsStarted > 0));
        var singles = new[] { 10, 11, 12 }.Select(k => p1.Writer.SubmitAsync(new SetWrite(k), CancellationToken.None)).ToArray();
        var duplicate = p1.Writer.SubmitAsync(new SetWrite(1), CancellationToken.None);
        sink2.Gate.SetResult();

        await unit.WaitAsync(Hang);
        Assert.Equal(new[] { 10, 11, 12 }, await Task.WhenAll(singles).WaitAsync(Hang));

        // Checked against the part once it was published: the unit's key is there, so the single insert is a duplicate.
        await Assert.ThrowsAsync<InvalidOperationException>(() => duplicate.WaitAsync(Hang));
        var log = sink1.Log.ToList();
        var end = log.IndexOf("end 1");
        Assert.True(log.IndexOf("publish 1") < end && end >= 0, string.Join(" | ", log));
        var singlesAt = log.FindIndex(l => l.StartsWith("commit 10", StringComparison.Ordinal));
        Assert.True(singlesAt > end, $"the single writes committed before the round ended: {string.Join(" | ", log)}");
        Assert.Equal("10,11,12", string.Join(",", log.Skip(singlesAt).SelectMany(l => l["commit ".Length..].Split(',', StringSplitOptions.RemoveEmptyEntries))));
    }

    private (PartSink Sink, SetParticipant Participant) Participant(int maxQueued = 1024)
    {
        var sink = new PartSink();
        return (sink, new SetParticipant(new WriterHandle<SetWrite, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), maxQueued)));
    }

    private Task Submit(SetUnit unit)
    {
        _coordinator.Tell(new UnitProtocol.Submit(unit));
        return unit.Completion;
    }
}
