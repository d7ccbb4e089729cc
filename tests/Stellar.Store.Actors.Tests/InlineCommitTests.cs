using Akka.TestKit.Xunit2;

namespace Stellar.Store.Actors.Tests;

/// <summary>
/// The writer over a sink that commits a group on the actor's own turn (it returns a completed task, as the store's
/// engine does for a small group): writes that queued meanwhile still share one group, every caller gets its own
/// outcome, and a failed commit faults the collection as one that ran elsewhere does.
/// </summary>
public sealed class InlineCommitTests : TestKit
{
    /// <summary>A sink over a set of ints that commits synchronously; its first commit can be held on a gate.</summary>
    private sealed class SynchronousSink : ICommitSink<int, int>
    {
        private readonly HashSet<int> _committed = new();
        private readonly List<int> _staged = new();

        public ManualResetEventSlim FirstCommitGate { get; } = new(true);

        public TaskCompletionSource FirstCommitStarted { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public bool FailCommits { get; set; }

        public List<int> Groups { get; } = new();

        public IReadOnlyCollection<int> Committed => _committed;

        public Exception? Stage(int key, out int result)
        {
            result = key * 10;
            if (_committed.Contains(key) || _staged.Contains(key))
            {
                return new InvalidOperationException($"duplicate {key}");
            }

            _staged.Add(key);
            return null;
        }

        public Task CommitAsync(Action<IReadOnlyList<PartBlock>>? partPlaced)
        {
            if (Groups.Count == 0)
            {
                FirstCommitStarted.TrySetResult();
                FirstCommitGate.Wait(TimeSpan.FromMinutes(1));
            }

            if (FailCommits)
            {
                return Task.FromException(new IOException("disk on fire"));
            }

            Groups.Add(_staged.Count);
            _committed.UnionWith(_staged);
            _staged.Clear();
            return Task.CompletedTask;
        }

        public void Discard() => _staged.Clear();

        public void Unstage() => throw new NotSupportedException("this sink is never sent a round's part");

        public void PublishPart(long round) => throw new NotSupportedException("this sink is never sent a round's part");

        public void EndPart() => throw new NotSupportedException("this sink is never sent a round's part");

        public Task FlushAsync() => Task.CompletedTask;

        public Exception Fault(Exception cause) => new InvalidOperationException("faulted", cause);
    }

    private static Task<int> Send(WriterHandle<int, int> handle, int key) => handle.SubmitAsync(key, CancellationToken.None);

    [Fact]
    public async Task Append_WhileASynchronousCommitHoldsTheWriter_QueuedWritesFormOneGroupAndEachGetsItsResult()
    {
        var sink = new SynchronousSink();
        sink.FirstCommitGate.Reset();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 1024);
        var first = Send(handle, 0);
        await sink.FirstCommitStarted.Task.WaitAsync(TimeSpan.FromMinutes(1));

        var rest = Enumerable.Range(1, 199).Select(i => Send(handle, i)).ToArray();
        sink.FirstCommitGate.Set();
        var results = await Task.WhenAll(rest.Prepend(first)).WaitAsync(TimeSpan.FromMinutes(1));

        Assert.Equal(Enumerable.Range(0, 200).Select(i => i * 10), results);
        Assert.Equal(new[] { 1, 199 }, sink.Groups);
        Assert.Equal(200, sink.Committed.Count);
    }

    [Fact]
    public async Task Append_RejectedBesideSynchronousCommits_FailsOnlyThatWrite()
    {
        var sink = new SynchronousSink();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 16);
        Assert.Equal(10, await Send(handle, 1));
        await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 1));
        Assert.Equal(20, await Send(handle, 2));
        Assert.Equal(new[] { 1, 2 }, sink.Committed.Order());
    }

    [Fact]
    public async Task Append_WhenASynchronousCommitFails_FailsTheGroupAndEveryLaterWriteAndFlush()
    {
        var sink = new SynchronousSink();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 16);
        await Send(handle, 1);
        sink.FailCommits = true;

        var failed = await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 2));
        Assert.IsType<IOException>(failed.InnerException);

        sink.FailCommits = false;
        var later = await Assert.ThrowsAsync<InvalidOperationException>(() => Send(handle, 3));
        Assert.Equal("faulted", later.Message);
        await Assert.ThrowsAsync<InvalidOperationException>(() => handle.FlushAsync());
        Assert.Equal(new[] { 1 }, sink.Committed);
    }

    [Fact]
    public async Task Close_AfterWritesCommittedSynchronously_CommitsThemAllThenRefusesMore()
    {
        var sink = new SynchronousSink();
        using var handle = new WriterHandle<int, int>(Sys.ActorOf(CollectionWriterProps.Create(sink)), 64);
        var writes = Enumerable.Range(0, 10).Select(i => Send(handle, i)).ToArray();
        await handle.CloseAsync();
        await Task.WhenAll(writes);
        Assert.Equal(10, sink.Committed.Count);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => Send(handle, 11).WaitAsync(TimeSpan.FromMinutes(1)));
    }
}
