using System.Collections.Concurrent;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// Group commit built outside a store that has none, as its experts would for many callers: one writer thread
/// drains a queue, commits everything it took (up to <c>maxBatch</c> writes) in one transaction, then releases each
/// caller whose write that transaction held. A caller's <see cref="Write"/> returns only after its own commit, so
/// the per-caller promise is the store's own (an fsync per transaction in a FULL / fsync mode). Thread-safe.
/// </summary>
public sealed class GroupCommit<T> : IDisposable
{
    private readonly BlockingCollection<Pending> _queue = new();
    private readonly Action<List<T>> _commit;
    private readonly int _maxBatch;
    private readonly Thread _writer;

    /// <summary>Starts the writer thread; <paramref name="commit"/> writes one batch in one transaction.</summary>
    public GroupCommit(Action<List<T>> commit, int maxBatch = 1024)
    {
        _commit = commit;
        _maxBatch = maxBatch;
        _writer = new Thread(Drain) { IsBackground = true, Name = "group-commit" };
        _writer.Start();
    }

    /// <summary>Queues <paramref name="item"/> and blocks until the transaction that holds it has committed.</summary>
    public void Write(T item)
    {
        using var pending = new Pending(item);
        _queue.Add(pending);
        pending.Done.Wait();
        if (pending.Error is { } error)
        {
            throw new InvalidOperationException("The group commit that held this write failed.", error);
        }
    }

    /// <summary>Stops the writer once the queue is empty.</summary>
    public void Dispose()
    {
        _queue.CompleteAdding();
        _writer.Join();
        _queue.Dispose();
    }

    private void Drain()
    {
        var batch = new List<Pending>(_maxBatch);
        var items = new List<T>(_maxBatch);
        foreach (var first in _queue.GetConsumingEnumerable())
        {
            batch.Add(first);
            while (batch.Count < _maxBatch && _queue.TryTake(out var next))
            {
                batch.Add(next);
            }

            items.AddRange(batch.Select(p => p.Item));
            Exception? error = null;
            try
            {
                _commit(items);
            }
            catch (Exception e)
            {
                error = e;
            }

            foreach (var pending in batch)
            {
                pending.Error = error;
                pending.Done.Set();
            }

            batch.Clear();
            items.Clear();
        }
    }

    private sealed class Pending(T item) : IDisposable
    {
        public T Item { get; } = item;

        public ManualResetEventSlim Done { get; } = new(false);

        public Exception? Error { get; set; }

        public void Dispose() => Done.Dispose();
    }
}
