using Akka.TestKit.Xunit2;

namespace Stellar.Store.Actors.Tests;

/// <summary>
/// The byte bounds of a writer, with the real actor over a sink whose commits wait until the test opens it (a disk
/// that has stalled): queued bytes stay within the handle's bound, callers wait rather than pile up, every write
/// then completes in order, and no commit group passes the writer's group bound.
/// </summary>
public sealed class QueueBoundTests : TestKit
{
    /// <summary>A write that says how many bytes it stands for, so the sink can add up its groups independently.</summary>
    private sealed record Sized(int Key, long Bytes);

    /// <summary>A sink whose commits wait until <see cref="Open"/>; it records each group's bytes and the order of commits.</summary>
    private sealed class StalledSink : ICommitSink<QueueBoundTests.Sized, bool>
    {
        private readonly TaskCompletionSource _open = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly List<Sized> _staged = new();
        private readonly List<int> _committed = new();
        private readonly List<long> _groupBytes = new();

        public IReadOnlyList<int> Committed => _committed;

        public IReadOnlyList<long> GroupBytes => _groupBytes;

        public void Open() => _open.TrySetResult();

        public Exception? Stage(Sized write, out bool result)
        {
            result = true;
            _staged.Add(write);
            return null;
        }

        public async Task CommitAsync(Action<IReadOnlyList<PartBlock>>? partPlaced)
        {
            await _open.Task;
            _groupBytes.Add(_staged.Sum(w => w.Bytes));
            _committed.AddRange(_staged.Select(w => w.Key));
            _staged.Clear();
        }

        public void Discard() => _staged.Clear();

        public void Unstage() => throw new NotSupportedException("this sink is never sent a round's part");

        public void PublishPart(long round) => throw new NotSupportedException("this sink is never sent a round's part");

        public void EndPart() => throw new NotSupportedException("this sink is never sent a round's part");

        public Task FlushAsync() => Task.CompletedTask;

        public Exception Fault(Exception cause) => new InvalidOperationException("faulted", cause);
    }

    private WriterHandle<Sized, bool> Handle(StalledSink sink, long maxQueuedBytes, long maxGroupBytes) =>
        new(Sys.ActorOf(CollectionWriterProps.Create(sink, maxGroupBytes)), 1024, maxQueuedBytes);

    private static Task<bool> Submit(WriterHandle<Sized, bool> handle, int key, long bytes, CancellationToken cancellationToken = default) =>
        handle.SubmitAsync(new Sized(key, bytes), bytes, cancellationToken);

    [Fact]
    public async Task Submit_WhenQueuedBytesReachTheBound_CallersWaitThenEveryWriteCompletesWithinBothBounds()
    {
        const long MaxQueuedBytes = 10_000;
        const long MaxGroupBytes = 3_000;
        var sink = new StalledSink();
        using var handle = Handle(sink, MaxQueuedBytes, MaxGroupBytes);
        var writes = Enumerable.Range(0, 100).Select(i => Submit(handle, i, 1_000)).ToArray();

        // The stalled sink holds the first group: ten writes fill the byte bound, the ninety others wait, none is done.
        Assert.Equal(MaxQueuedBytes, handle.QueuedBytes);
        Assert.Equal(90, handle.Waiting);
        Assert.DoesNotContain(writes, w => w.IsCompleted);

        sink.Open();
        await Task.WhenAll(writes).WaitAsync(TimeSpan.FromMinutes(1));

        Assert.Equal(Enumerable.Range(0, 100), sink.Committed);
        Assert.InRange(handle.PeakQueuedBytes, 1_000, MaxQueuedBytes);
        Assert.All(sink.GroupBytes, bytes => Assert.InRange(bytes, 1_000, MaxGroupBytes));
        Assert.Equal(0, handle.QueuedBytes);
        Assert.Equal(0, handle.Waiting);
    }

    [Fact]
    public async Task Submit_WriteLargerThanTheByteBound_WaitsItsTurnThenGoesAlone()
    {
        var sink = new StalledSink();
        using var handle = Handle(sink, maxQueuedBytes: 1_000, maxGroupBytes: 1_000);
        var small = Submit(handle, 1, 600);
        var huge = Submit(handle, 2, 5_000);
        var after = Submit(handle, 3, 100); // first come, first served: behind the huge one although it would fit

        Assert.Equal(600, handle.QueuedBytes);
        Assert.Equal(2, handle.Waiting);

        sink.Open();
        await Task.WhenAll(small, huge, after).WaitAsync(TimeSpan.FromMinutes(1));

        Assert.Equal(new[] { 1, 2, 3 }, sink.Committed);
        Assert.Equal(new long[] { 600, 5_000, 100 }, sink.GroupBytes);
        Assert.Equal(5_000, handle.PeakQueuedBytes);
    }

    [Fact]
    public async Task Submit_CancelledWhileWaitingForRoom_IsNeverSentAndLetsTheNextOneIn()
    {
        var sink = new StalledSink();
        using var handle = Handle(sink, maxQueuedBytes: 1_000, maxGroupBytes: 1_000);
        var first = Submit(handle, 1, 600);
        using var cancel = new CancellationTokenSource();
        var cancelled = Submit(handle, 2, 600, cancel.Token);
        var behind = Submit(handle, 3, 300);
        Assert.Equal(2, handle.Waiting);

        // The cancelled write held the queue's head; once it is gone, the next one fits beside the first.
        cancel.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled);
        Assert.Equal(0, handle.Waiting);
        Assert.Equal(900, handle.QueuedBytes);

        sink.Open();
        await Task.WhenAll(first, behind).WaitAsync(TimeSpan.FromMinutes(1));
        Assert.Equal(new[] { 1, 3 }, sink.Committed);
    }
}
