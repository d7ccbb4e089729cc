using Akka.TestKit.Xunit2;

namespace Stellar.Store.Actors.Tests;

public sealed class CollectionWriterTests : TestKit
{
    /// <summary>A sink over a set of ints: "insert" rejects duplicates; commits can be made to fail.</summary>
    private sealed class SetSink : ICommitSink<int, int>
    {
        private readonly HashSet<int> _committed = new();
        private readonly List<int> _staged = new();
        private int _commitsStarted;

        public bool FailCommits { get; set; }

        /// <summary>Commits throw instead of returning their task, as a bug in the engine would.</summary>
        public bool CommitsThrow { get; set; }

        /// <summary>Flushes throw instead of returning their task, as a bug in the engine would.</summary>
        public bool FlushesThrow { get; set; }

        /// <summary>While not null, commits wait for it.</summary>
        public TaskCompletionSource? Gate { get; set; }

        /// <summary>Commits that reached the sink (held at the gate or not).</summary>
        public int CommitsStarted => Volatile.Read(ref _commitsStarted);

        /// <summary>Which keys must be a group of their own.</summary>
        public Func<int, bool> Alone { get; set; } = _ => false;

        /// <summary>Every committed group's keys, in order.</summary>
        public List<int[]> Groups { get; } = new();

        public int Commits { get; private set; }

        public int MaxGroup { get; private set; }

        public IReadOnlyCollection<int> Committed => _committed;

        /// <summary>A key whose staging throws (as a user's key type can), instead of answering.</summary>
        public int? Throws { get; set; }

        public Exception? Stage(int key, out int result)
        {
            result = key;
            if (key == Throws)
            {
                throw new FormatException($"key {key} cannot be staged");
            }

            if (_committed.Contains(key) || _staged.Contains(key))
            {
                return new InvalidOperationException($"duplicate {key}");
            }

            _staged.Add(key);
            return null;
        }

        public Task CommitAsync(Action<IReadOnlyList<PartBlock>>? partPlaced) =>
            CommitsThrow ? throw new InvalidOperationException("commit threw") : CommitCoreAsync();

        private async Task CommitCoreAsync()
        {
            Interlocked.Increment(ref _commitsStarted);
            if (Gate is { } gate)
            {
                await gate.Task;
            }

            await Task.Delay(20);
            if (FailCommits)
            {
                throw new IOException("disk on fire");
            }

            Commits++;
            MaxGroup = Math.Max(MaxGroup, _staged.Count);
            Groups.Add(_staged.ToArray());
            _committed.UnionWith(_staged);
            _staged.Clear();
        }

        public void Discard() => _staged.Clear();

        public bool StandsAlone(int key) => Alone(key);

        public void Unstage() => throw new NotSupportedException("this sink is never sent a round's part");

        public void PublishPart(long round) => throw new NotSupportedException("this sink is never sent a round's part");

        public void EndPart() => throw new NotSupportedException("this sink is never sent a round's part");

        public Task FlushAsync() => FlushesThrow ? throw new InvalidOperationException("flush threw") : Task.CompletedTask;

        public Exception Fault(Exception cause) => new InvalidOperationException("faulted", cause);
    }

    private static Task<int> Send(WriterHandle<int, int> handle, int key) => handle.SubmitAsync(key, CancellationToken.None);

    /// <summary>
    /// The owner of the writes (the collection, which returns each write's buffers to their pool) gets each write back
    /// exactly once, whatever its outcome, and before its caller learns the outcome: stored, rejected, cancelled while
    /// it waited for room, failed with the collection, refused after the close. A write given back twice would put its
    /// buffer in the pool twice; one never given back would leak it; one given back before its outcome could be reused
    /// while the writer still reads it.
    /// </summary>
    [Fact]
    public async Task Handle_GivesEachWriteBackToItsOwnerOnceAtItsOutcome_WhateverTheOutcome()
    {
        var given = new System.Collections.Concurrent.ConcurrentQueue<int>();
        var sink = new SetSink();
        var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), maxQueued: 1, long.MaxValue, given.Enqueue);

        Assert.Equal(1, await Send(handle, 1));
        Assert.Equal([1], given);

        var rejected = await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 1));
        Assert.Contains("duplicate", rejected.Message);
        Assert.Equal([1, 1], given);

        // A stalled commit holds the only place in the queue: the next write waits for room, and is cancelled there.
        sink.Gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var stalled = Send(handle, 2);
        using var cancel = new CancellationTokenSource();
        var waiting = handle.SubmitAsync(3, cancel.Token);
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting);
        Assert.Equal([1, 1, 3], given);
        sink.Gate.SetResult();
        Assert.Equal(2, await stalled);
        Assert.Equal([1, 1, 3, 2], given);

        sink.FailCommits = true;
        await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 4));
        Assert.Equal([1, 1, 3, 2, 4], given);

        await handle.CloseAsync().ContinueWith(_ => { }, TaskScheduler.Default);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => Send(handle, 5));
        Assert.Equal([1, 1, 3, 2, 4, 5], given);
        handle.Dispose();
    }

    [Fact]
    public async Task Append_ConcurrentWrites_AreGroupedAndAllCommitted()
    {
        var sink = new SetSink();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 1024);
        var results = await Task.WhenAll(Enumerable.Range(0, 200).Select(i => Send(handle, i)));

        Assert.Equal(200, sink.Committed.Count);
        Assert.Equal(Enumerable.Range(0, 200), results);
        Assert.True(sink.Commits < 200, "concurrent writes must share commit groups");
        Assert.True(sink.MaxGroup > 1);
    }

    [Fact]
    public async Task Append_OfAWriteThatStandsAlone_IsAGroupOfItsOwnBetweenGroupsOfTheOthers()
    {
        var sink = new SetSink { Alone = key => key % 50 == 25 };
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 1024);
        await Task.WhenAll(Enumerable.Range(0, 200).Select(i => Send(handle, i)));

        Assert.Equal(200, sink.Committed.Count);
        foreach (var key in new[] { 25, 75, 125, 175 })
        {
            Assert.Contains(sink.Groups, g => g.SequenceEqual(new[] { key }));
        }

        Assert.True(sink.MaxGroup > 1, "the other writes still share groups");
        Assert.Equal(Enumerable.Range(0, 200), sink.Groups.SelectMany(g => g));
    }

    [Fact]
    public async Task Append_OfWritesThatStandAloneOneAfterAnother_SharesAGroupWithEachOtherAndWithNoOtherWrite()
    {
        // Indexes declared together are built side by side: their steps form one group, which no write joins.
        var sink = new SetSink { Alone = key => key >= 1000, Gate = new TaskCompletionSource() };
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 1024);
        var first = Send(handle, 0);
        await AwaitConditionAsync(() => Task.FromResult(sink.CommitsStarted == 1));
        var rest = new[] { 1000, 1001, 1002, 3, 1003 }.Select(k => Send(handle, k)).ToArray();
        sink.Gate.SetResult();
        await Task.WhenAll(rest.Append(first));

        Assert.Equal(new[] { "0", "1000,1001,1002", "3", "1003" }, sink.Groups.Select(g => string.Join(",", g)));
    }

    [Fact]
    public async Task Append_Rejected_FailsOnlyThatWrite()
    {
        var sink = new SetSink();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 16);
        await Send(handle, 1);
        await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 1));
        await Send(handle, 2);
        Assert.Equal(new[] { 1, 2 }, sink.Committed.Order());
    }

    [Fact]
    public async Task Append_WhenCommitFails_FailsTheGroupAndEveryLaterWrite()
    {
        var sink = new SetSink();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 16);
        await Send(handle, 1);
        sink.FailCommits = true;

        var failed = await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 2));
        Assert.IsType<IOException>(failed.InnerException);

        // Faulted: later writes fail fast even though the storage would now work, and nothing was acknowledged.
        sink.FailCommits = false;
        var later = await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 3));
        Assert.Equal("faulted", later.Message);
        Assert.Equal(new[] { 1 }, sink.Committed);
        await Assert.ThrowsAsync<InvalidOperationException>(() => handle.FlushAsync());
    }

    [Fact]
    public async Task Append_WhenStagingThrows_FaultsTheCollectionInsteadOfLeavingCallersWaiting()
    {
        var sink = new SetSink { Throws = 2 };
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 16);
        await Send(handle, 1);

        // The write whose staging threw, and every later one, fail with the fault; nothing waits forever.
        var failed = await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 2).WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.IsType<FormatException>(failed.InnerException);
        var later = await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 3).WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal("faulted", later.Message);
        await Assert.ThrowsAsync<InvalidOperationException>(() => handle.FlushAsync().WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal(new[] { 1 }, sink.Committed);
        await handle.CloseAsync().WaitAsync(TimeSpan.FromSeconds(30));
    }

    [Fact]
    public async Task Append_WhenTheSinkThrowsStartingACommit_FailsEveryWaitingCallerWithTheFaultAndFaultsTheCollection()
    {
        var sink = new SetSink();
        var status = new WriterStatus();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink, long.MaxValue, status)), 16);
        await Send(handle, 1);
        sink.CommitsThrow = true;

        // Callers waiting on the group get the sink's fault, which says the outcome is uncertain, not that nothing was stored.
        var writes = new[] { 2, 3, 4 }.Select(k => Send(handle, k)).ToArray();
        foreach (var write in writes)
        {
            var failed = await Answered.FailureAsync(write, "a write whose commit threw");
            Assert.Equal("faulted", failed.Message);
            Assert.Equal("commit threw", failed.InnerException?.Message);
        }

        // Faulted as a failed fsync faults it: shown to health checks, and later writes and flushes refused.
        sink.CommitsThrow = false;
        Assert.Equal("faulted", status.Fault?.Message);
        Assert.Equal("faulted", (await Answered.FailureAsync(Send(handle, 5), "a write after the fault")).Message);
        Assert.Equal("faulted", (await Answered.FailureAsync(handle.FlushAsync(), "a flush after the fault")).Message);
        Assert.Equal(new[] { 1 }, sink.Committed);
        await handle.CloseAsync().WaitAsync(Answered.Bound);
    }

    [Fact]
    public async Task Flush_WhenTheSinkThrowsStartingIt_FailsTheWaitingFlushWithTheFaultAndFaultsTheCollection()
    {
        var sink = new SetSink { FlushesThrow = true };
        var status = new WriterStatus();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink, long.MaxValue, status)), 16);
        await Send(handle, 1);

        var failed = await Answered.FailureAsync(handle.FlushAsync(), "a flush that threw");
        Assert.Equal("faulted", failed.Message);
        Assert.Equal("flush threw", failed.InnerException?.Message);
        Assert.Equal("faulted", status.Fault?.Message);
        Assert.Equal("faulted", (await Answered.FailureAsync(Send(handle, 2), "a write after the fault")).Message);
        Assert.Equal(new[] { 1 }, sink.Committed);
    }

    [Fact]
    public async Task Append_WhenTheSinkThrowsTellingWhetherAWriteStandsAlone_FailsThatWriteWithTheFault()
    {
        var sink = new SetSink { Alone = key => key == 2 ? throw new InvalidOperationException("stands alone threw") : false };
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 16);
        await Send(handle, 1);

        var failed = await Answered.FailureAsync(Send(handle, 2), "a write the sink threw on");
        Assert.Equal("faulted", failed.Message);
        Assert.Equal("stands alone threw", failed.InnerException?.Message);
        Assert.Equal("faulted", (await Answered.FailureAsync(Send(handle, 3), "a write after the fault")).Message);
        Assert.Equal(new[] { 1 }, sink.Committed);
    }

    [Fact]
    public async Task SubmitAndFlush_AfterClose_FailWithObjectDisposedInsteadOfWaitingForever()
    {
        // The closed writer has stopped: a message sent to it now would be dropped and its task never completed.
        var sink = new SetSink();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 16);
        await Send(handle, 1);
        await handle.CloseAsync();
        await handle.CloseAsync();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => Send(handle, 2).WaitAsync(TimeSpan.FromMinutes(1)));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => handle.FlushAsync().WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.Equal(new[] { 1 }, sink.Committed);
    }

    [Fact]
    public async Task Close_AfterQueuedWrites_CommitsThemThenRefusesMore()
    {
        var sink = new SetSink();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 64);
        var writes = Enumerable.Range(0, 10).Select(i => Send(handle, i)).ToArray();
        await handle.CloseAsync();
        await Task.WhenAll(writes);
        Assert.Equal(10, sink.Committed.Count);
    }
}
