using System.Diagnostics;

namespace Stellar.Store.Feed;

/// <summary>
/// The end of one collection's committed blocks, moved by the writer after each publish, and the wake-up of the feeds
/// that wait at it. Moving it costs one volatile write and one read when no feed waits; a waiting feed installs a
/// <see cref="TaskCompletionSource"/> that the next move completes and clears.
/// </summary>
/// <remarks>
/// Thread safety: one writer (the collection's) calls <see cref="Advance"/>; any number of feeds read
/// <see cref="Current"/> and call <see cref="WaitPastAsync"/> from any thread.
/// </remarks>
internal sealed class ChangeFeedTail
{
    private FeedTail _current;
    private TaskCompletionSource? _waiters;
    private int _readers;
    private int _closed;

    public ChangeFeedTail(FeedTail initial) => _current = initial;

    /// <summary>The committed end, as of the last publish.</summary>
    public FeedTail Current => Volatile.Read(ref _current);

    /// <summary>Whether a feed is open on the collection (then Buffered mode hands each group to the OS at once).</summary>
    public bool HasReaders => Volatile.Read(ref _readers) > 0;

    /// <summary>Counts a feed open until the returned handle is disposed.</summary>
    public IDisposable Open()
    {
        Interlocked.Increment(ref _readers);
        return new Reader(this);
    }

    /// <summary>Writer only: publishes a new end and wakes every feed waiting for it.</summary>
    public void Advance(FeedTail tail)
    {
        Debug.Assert(tail.Next >= _current.Next, "the committed end only moves forward");
        Volatile.Write(ref _current, tail);
        if (Volatile.Read(ref _waiters) is not null)
        {
            Interlocked.Exchange(ref _waiters, null)?.TrySetResult();
        }
    }

    /// <summary>At the store's close: every wait, now and later, fails with <see cref="ObjectDisposedException"/>.</summary>
    public void Close()
    {
        Volatile.Write(ref _closed, 1);
        Interlocked.Exchange(ref _waiters, null)?.TrySetException(Closed());
    }

    /// <summary>
    /// Completes once blocks up to <paramref name="sequence"/> are committed (at once if they are); fails when cancelled,
    /// or with <see cref="ObjectDisposedException"/> once the store is closing.
    /// </summary>
    public Task WaitPastAsync(ulong sequence, CancellationToken cancellationToken)
    {
        if (Volatile.Read(ref _closed) != 0)
        {
            return Task.FromException(Closed());
        }

        if (Current.Next > sequence)
        {
            return Task.CompletedTask;
        }

        var waiters = Volatile.Read(ref _waiters);
        if (waiters is null)
        {
            var fresh = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            waiters = Interlocked.CompareExchange(ref _waiters, fresh, null) ?? fresh;
        }

        // Checked again after the source is in place: an advance or a close before it was installed is seen here, and
        // one after it completes the source.
        return Volatile.Read(ref _closed) != 0 ? Task.FromException(Closed())
            : Current.Next > sequence ? Task.CompletedTask
            : waiters.Task.WaitAsync(cancellationToken);
    }

    private static ObjectDisposedException Closed() => new("store", "The store was closed while a change feed waited for new commits.");

    private sealed class Reader(ChangeFeedTail tail) : IDisposable
    {
        private int _disposed;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _disposed, 1) == 0)
            {
                Interlocked.Decrement(ref tail._readers);
            }
        }
    }
}
