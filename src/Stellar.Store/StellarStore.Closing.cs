using Akka.Actor;
using Stellar.Store.Actors;
using Stellar.Store.Diagnostics;
using Stellar.Store.Engine;

namespace Stellar.Store;

/// <summary>The store's close: the units and every writer finish what was queued before the close, the indexes keep their orders, and the files and the directory lock are let go, also when the caller's actor system has terminated.</summary>
public sealed partial class StellarStore
{
    private List<IWriterHandle> Writers()
    {
        lock (_gate)
        {
            return _writers.ToList();
        }
    }

    private Task CloseAsync(bool terminateSystem)
    {
        lock (_gate)
        {
            if (_disposeTask is null)
            {
                Volatile.Write(ref _disposed, 1);
                _disposeTask = CloseCoreAsync(terminateSystem);
            }

            return _disposeTask;
        }
    }

    /// <summary>
    /// Waits for <paramref name="closing"/>, which the store's actors complete; throws when the actor system they run in
    /// terminated first (a caller's system whose shutdown did not close the store): its actors are gone and never answer,
    /// and the close goes on to release the files and the lock.
    /// </summary>
    private async Task UnlessTerminatedAsync(Task closing)
    {
        if (await Task.WhenAny(closing, _system.WhenTerminated).ConfigureAwait(false) != closing)
        {
            throw new InvalidOperationException("The actor system the store's actors ran in terminated before they closed; the store let go of its files without them.");
        }

        await closing.ConfigureAwait(false);
    }

    private async Task CloseCoreAsync(bool terminateSystem)
    {
        // No load starts once disposal has begun (GetCollection checks under the lock); those running end first, so
        // that their writers are closed below and their shards are not closed under them.
        Task[] loads;
        lock (_gate)
        {
            loads = _collections.Values.ToArray<Task>();
        }

        await Task.WhenAll(loads).ContinueWith(static _ => { }, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default).ConfigureAwait(false);
        List<Compactor> compactors;
        List<IAsyncDisposable> sweepers;
        lock (_gate)
        {
            compactors = _compactors.ToList();
            sweepers = _sweepers.ToList();
            _feedTails.ForEach(tail => tail.Close());
        }

        var writers = Writers();
        Exception? failure = null;
        try
        {
            foreach (var sweeper in sweepers)
            {
                await sweeper.DisposeAsync().ConfigureAwait(false);
            }

            await UnlessTerminatedAsync(_units.CloseAsync()).ConfigureAwait(false);
            await Task.WhenAll(compactors.Select(c => c.StopAsync())).ConfigureAwait(false);
            await UnlessTerminatedAsync(Task.WhenAll(writers.Select(w => w.CloseAsync()))).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            failure = e;
        }

        foreach (var writer in writers)
        {
            writer.Dispose();
        }

        if (failure is null)
        {
            // Every writer has stopped: the indexes hold the final records, and keep their orders for the next open.
            List<Action> savers;
            lock (_gate)
            {
                savers = _indexOrderSavers.ToList();
            }

            try
            {
                foreach (var save in savers)
                {
                    save();
                }
            }
            catch (Exception e)
            {
                // Reported by the close, which still releases every file and the lock below.
                failure = e;
            }
        }

        _units.Dispose();

        foreach (var compactor in compactors)
        {
            if (failure is null)
            {
                compactor.DeleteRetired();
            }

            compactor.Dispose();
        }

        foreach (var chain in _chains.Values)
        {
            chain.Dispose();
        }

        _cipher?.Dispose();
        _manifest.Close();

        _lock.Dispose();
        List<IDisposable> observations;
        lock (_gate)
        {
            observations = _observations.ToList();
        }

        foreach (var observation in observations)
        {
            observation.Dispose();
        }

        _system.Stop(_guardian);
        Volatile.Write(ref _shutdownHook.Value, null);
        if (terminateSystem)
        {
            await _system.Terminate().ConfigureAwait(false);
        }

        if (_view is not null)
        {
            TryDeleteDirectory(_view);
        }

        if (failure is not null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(failure).Throw();
        }

        StoreLog.StoreClosed(_diagnostics.Logger, Path);
    }
}
