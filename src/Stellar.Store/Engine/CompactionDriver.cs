using System.Diagnostics;
using System.Runtime.ExceptionServices;
using Stellar.Store.Actors;
using Stellar.Store.Shards;

namespace Stellar.Store.Engine;

/// <summary>
/// Drives the compactions of one collection through its writer: the begin and finish steps are queued like writes,
/// so they run in the writer's order, and the copy runs on the thread pool in between.
/// </summary>
/// <remarks>Thread safety: any thread; the <see cref="Compactor"/> runs one compaction at a time.</remarks>
internal sealed class CompactionDriver<TKey, TValue> : ICompactionTarget
    where TKey : notnull
{
    private readonly CollectionEngine<TKey, TValue> _engine;
    private readonly WriterHandle<CollectionWrite<TKey, TValue>, bool> _writer;
    private readonly Func<Task> _decisionsDurable;
    private readonly Action _loadHolds;
    private readonly Func<IReadOnlyList<CompactionHold>> _holds;

    /// <param name="engine">The collection's engine.</param>
    /// <param name="writer">The collection's writer.</param>
    /// <param name="decisionsDurable">
    /// Makes every decision of a cross-collection round recorded so far durable on the device (the unit log's flush).
    /// </param>
    /// <param name="loadHolds">
    /// Off the writer, before each begin: loads what <paramref name="holds"/> reads when it is not loaded yet (the store's
    /// cursors), so that the begin never waits for a load on the writer's turn.
    /// </param>
    /// <param name="holds">The holds of the collection's named cursors on its compaction, as stored now; read on the writer's turn.</param>
    public CompactionDriver(CollectionEngine<TKey, TValue> engine, WriterHandle<CollectionWrite<TKey, TValue>, bool> writer, Func<Task> decisionsDurable,
        Action loadHolds, Func<IReadOnlyList<CompactionHold>> holds)
    {
        _engine = engine;
        _writer = writer;
        _decisionsDurable = decisionsDurable;
        _loadHolds = loadHolds;
        _holds = holds;
    }

    /// <summary>
    /// Runs one compaction, traced, and logged and counted when it rewrites shards, with each cursor's hold it passed;
    /// a cancellation (the store closing) is neither a failure nor a compaction.
    /// </summary>
    public async Task RunAsync(CancellationToken cancellationToken)
    {
        var diagnostics = _engine.Diagnostics;
        using var activity = diagnostics.StartCompaction();
        var started = Stopwatch.GetTimestamp();
        try
        {
            _loadHolds();
            var run = new CompactionRun<TKey, TValue> { Holds = _holds };
            await _writer.SubmitAsync(new CompactionStep<TKey, TValue>(run, begin: true), cancellationToken).ConfigureAwait(false);
            if (run.HoldsFailure is { } failure)
            {
                ExceptionDispatchInfo.Throw(failure);
            }

            if (!run.HasWork)
            {
                if (run.Held)
                {
                    // The garbage is history a cursor still needs: wait for more before trying again on its own.
                    _engine.Ledger.DeferAutoCompaction();
                }

                return;
            }

            var storedBefore = _engine.StoredBytes;
            diagnostics.CompactionStarted(run.Prefix.Length, storedBefore, _engine.LiveBytes);
            await RewriteAsync(run, cancellationToken).ConfigureAwait(false);
            foreach (var passed in run.PassedHolds)
            {
                diagnostics.HoldPassed(passed);
            }

            diagnostics.CompactionFinished(activity, Stopwatch.GetElapsedTime(started), storedBefore, _engine.StoredBytes);
        }
        catch (Exception e) when (!(e is OperationCanceledException && cancellationToken.IsCancellationRequested))
        {
            diagnostics.CompactionFailed(activity, Stopwatch.GetElapsedTime(started), e);
            throw;
        }
    }

    public Task RequestReleaseAsync() => _writer.SubmitAsync(new ReleaseStep<TKey, TValue>(), CancellationToken.None);

    public void DeferAutoCompaction() => _engine.Ledger.DeferAutoCompaction();

    public void DeleteAllRetired() => _engine.DeleteAllRetired();

    /// <summary>Copies the live records off the writer, then has the writer swap the copy in.</summary>
    private async Task RewriteAsync(CompactionRun<TKey, TValue> run, CancellationToken cancellationToken)
    {
        try
        {
            // A thread of its own, not one of the pool's: a copy of a large collection takes long, and the writes need the pool.
            await Task.Factory.StartNew(() => _engine.Copier.CopyLive(run, cancellationToken), cancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default)
                .ConfigureAwait(false);
        }
        catch
        {
            _engine.Copier.Abandon(run);
            throw;
        }

        // The copy holds the records of rounds' parts as plain records, which count without a decision once swapped in.
        // Every such round was published before the compaction began, so its decision was recorded; in Buffered mode
        // it may still be in memory only, and a crash would keep this part and drop the others. Made durable first.
        try
        {
            await _decisionsDurable().ConfigureAwait(false);
        }
        catch
        {
            _engine.Copier.Abandon(run);
            throw;
        }

        // From here the writer owns the outcome: it swaps the output in, or faults the collection when the swap
        // fails, since such a failure may have taken effect.
        await _writer.SubmitAsync(new CompactionStep<TKey, TValue>(run, begin: false), CancellationToken.None).ConfigureAwait(false);
    }
}
