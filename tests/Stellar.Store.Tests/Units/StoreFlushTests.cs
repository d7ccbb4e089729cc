using Stellar.Store.Actors;

namespace Stellar.Store.Tests.Units;

/// <summary>
/// <see cref="StoreFlush"/>, the store-wide flush, over writers the test completes by hand: the unit log is flushed only
/// once every collection is, so that no part is durable without its decision, and the outcome is the first
/// collection's failure in order, as awaiting every flush together gives it.
/// </summary>
public sealed class StoreFlushTests
{
    [Fact]
    public void Flush_FlushesTheLogOnlyAfterEveryCollection_AndCompletesOnTheThreadThatFinishedTheLast()
    {
        var a = new HandFlushedWriter();
        var b = new HandFlushedWriter();
        var log = new HandFlushedWriter();
        var flush = new StoreFlush([a, b], log);

        Assert.Equal(1, a.Flushes);
        Assert.Equal(1, b.Flushes);
        Assert.Equal(0, log.Flushes);
        a.Finish(null);
        Assert.Equal(0, log.Flushes);
        b.Finish(null);
        Assert.Equal(1, log.Flushes);
        Assert.False(flush.Task.IsCompleted);

        // No await and no thread of the pool between the log's flush and the task: it is complete when Finish returns.
        log.Finish(null);
        Assert.True(flush.Task.IsCompletedSuccessfully);
    }

    [Fact]
    public async Task Flush_WhenCollectionsFail_FailsWithTheFirstInOrderAndLeavesTheLogUnflushed()
    {
        var a = new HandFlushedWriter();
        var b = new HandFlushedWriter();
        var c = new HandFlushedWriter();
        var log = new HandFlushedWriter();
        var flush = new StoreFlush([a, b, c], log);

        var second = new IOException("b failed");
        var third = new IOException("c failed");
        c.Finish(third);
        b.Finish(second);
        a.Finish(null);

        Assert.Same(second, await Assert.ThrowsAsync<IOException>(() => flush.Task));
        Assert.Equal(0, log.Flushes);
    }

    [Fact]
    public async Task Flush_WhenTheLogFails_FailsWithItsFailure_AndWithNoCollectionFlushesTheLogAtOnce()
    {
        var log = new HandFlushedWriter();
        var flush = new StoreFlush([], log);
        Assert.Equal(1, log.Flushes);

        var failure = new ObjectDisposedException("log");
        log.Finish(failure);
        Assert.Same(failure, await Assert.ThrowsAsync<ObjectDisposedException>(() => flush.Task));
        Assert.True(new StoreFlush([], null).Task.IsCompletedSuccessfully);
    }

    /// <summary>A writer whose flushes complete when the test says, running their callbacks first, as the writer does.</summary>
    private sealed class HandFlushedWriter : IWriterHandle
    {
        private readonly List<(TaskCompletionSource Done, Action<Exception?>? Then)> _pending = [];

        public int Flushes => _pending.Count;

        public Task FlushAsync(Action<Exception?>? then = null)
        {
            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _pending.Add((done, then));
            return done.Task;
        }

        public void Finish(Exception? failure)
        {
            var (done, then) = Assert.Single(_pending);
            if (failure is null)
            {
                done.SetResult();
            }
            else
            {
                done.SetException(failure);
            }

            then?.Invoke(failure);
        }

        public Task CloseAsync() => Task.CompletedTask;

        public Task EnterUnit(Task submitted, Task outcome) => Task.CompletedTask;

        public void Dispose()
        {
        }
    }
}
