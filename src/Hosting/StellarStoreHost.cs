using System.Diagnostics.Metrics;
using Akka.Actor;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Stellar.Store.Hosting;

/// <summary>
/// The store of a host that called <c>AddStellarStore</c>: opened when the host starts, flushed and closed when it stops
/// (or, when the host is disposed without stopping it, as after a later service failed its start, when it is disposed).
/// <see cref="StellarStore"/> itself is registered too and resolves to <see cref="Store"/>; inject this type instead where
/// the store is needed before the host has started (a constructor of another hosted service, which the host builds
/// before it starts any) and read <see cref="Store"/> or await <see cref="GetStoreAsync"/> later.
/// </summary>
/// <remarks>
/// Thread safety: every member may be called from any thread. What is durable is the store's business: see
/// <see cref="StoreOptions.Durability"/>; the host's stop flushes (fsync) every collection before it closes the store.
/// </remarks>
public sealed class StellarStoreHost
{
    private readonly IOptions<StellarStoreOptions> _options;
    private readonly IServiceProvider _services;
    private readonly TaskCompletionSource<StellarStore> _opened = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly object _closeGate = new();
    private StellarStore? _store;

    /// <summary>The close, once one has begun (under <see cref="_closeGate"/>): the store is closed once.</summary>
    private Task? _close;

    /// <summary>Created by the container; use <c>AddStellarStore</c>.</summary>
    internal StellarStoreHost(IOptions<StellarStoreOptions> options, IServiceProvider services)
    {
        _options = options;
        _services = services;
    }

    /// <summary>
    /// The open store. Never blocks. It is the same instance from the host's start on; after the host stopped it is
    /// closed, and its members throw <see cref="ObjectDisposedException"/>.
    /// </summary>
    /// <exception cref="InvalidOperationException">The host has not started yet, or the store failed to open.</exception>
    public StellarStore Store => Volatile.Read(ref _store) ?? throw new InvalidOperationException(
        "The Stellar.Store store is opened when the host starts, and it is not open: the host has not started yet, or the " +
        "open failed and failed the start. Resolve StellarStore after the " +
        "host has started (in StartAsync or ExecuteAsync of a service registered after AddStellarStore, or in a request), " +
        "or inject StellarStoreHost and await GetStoreAsync().");

    /// <summary>
    /// Completes with the store once the host's start has opened it; fails with the open's exception when it could not
    /// open, and with <see cref="InvalidOperationException"/> when the host stops or is disposed before its start opened
    /// the store. Does not start anything itself.
    /// </summary>
    /// <param name="cancellationToken">Stops the wait, not the open.</param>
    public Task<StellarStore> GetStoreAsync(CancellationToken cancellationToken = default) => _opened.Task.WaitAsync(cancellationToken);

    /// <summary>Opens the store (at the host's start); throws what the open threw.</summary>
    internal async Task OpenAsync(CancellationToken cancellationToken)
    {
        var options = _options.Value;
        var storeOptions = HostActorSystem() is { } system ? options.Store.InActorSystem(system) : options.Store;

        // The host's logging and metrics, unless the options name their own.
        storeOptions = storeOptions.WithHostDiagnostics(_services.GetService<ILoggerFactory>(), _services.GetService<IMeterFactory>());
        try
        {
            var store = await options.Open(FullPath(options.Path!), storeOptions, cancellationToken).ConfigureAwait(false);
            Volatile.Write(ref _store, store);
            _opened.TrySetResult(store);
        }
        catch (Exception e)
        {
            _opened.TrySetException(e);
            throw;
        }
    }

    /// <summary>
    /// Flushes every collection and closes the store (at the host's stop). Throws what the flush or the close threw (a
    /// faulted collection cannot flush); the store is closed either way. A store that the actor system's
    /// <c>CoordinatedShutdown</c> closed first (Akka.Hosting stopping before this) was flushed by that close. Closes once:
    /// a later call gives the first one's outcome; before the store opened there is nothing to close.
    /// </summary>
    internal Task CloseAsync()
    {
        lock (_closeGate)
        {
            FailWaitsIfNeverOpened();
            if (_close is null && Volatile.Read(ref _store) is { } store)
            {
                _close = FlushAndCloseAsync(store);
            }

            return _close ?? Task.CompletedTask;
        }
    }

    /// <summary>
    /// Closes the store, as <see cref="CloseAsync"/> does, when no close has begun (at the container's disposal). The host
    /// disposes its services without stopping them when a service registered later fails its start, or when it is
    /// disposed without a stop; the store must still be flushed and its directory unlocked then. A close that has begun
    /// already reported its outcome to the stop, and is not reported again.
    /// </summary>
    internal Task CloseUnlessClosedAsync()
    {
        lock (_closeGate)
        {
            FailWaitsIfNeverOpened();
            if (_close is not null || Volatile.Read(ref _store) is not { } store)
            {
                return Task.CompletedTask;
            }

            return _close = FlushAndCloseAsync(store);
        }
    }

    /// <summary>
    /// Ends the waits of <see cref="GetStoreAsync"/> when the host stops or is disposed before the start reached the store
    /// (a start cancelled, or failed by a service registered before it): no open follows, and a wait must not outlive the host.
    /// </summary>
    private void FailWaitsIfNeverOpened()
    {
        if (Volatile.Read(ref _store) is null)
        {
            _opened.TrySetException(new InvalidOperationException(
                "The host stopped before it opened the Stellar.Store store: its start was cancelled, or failed before it reached the store."));
        }
    }

    private static async Task FlushAndCloseAsync(StellarStore store)
    {
        try
        {
            await store.FlushAsync().ConfigureAwait(false);
        }
        catch (ObjectDisposedException)
        {
            // Closed already, or closing: that close flushes what was acknowledged, and is awaited below.
        }
        finally
        {
            await store.DisposeAsync().ConfigureAwait(false);
        }
    }

    /// <summary>
    /// <paramref name="path"/> as it is when rooted, else under the host's content root: a service's current directory is
    /// not the app's (a Windows service starts in the system folder).
    /// </summary>
    private string FullPath(string path) => _services.GetService<IHostEnvironment>() is { } environment
        ? System.IO.Path.GetFullPath(path, environment.ContentRootPath)
        : System.IO.Path.GetFullPath(path);

    /// <summary>The host's actor system when Akka.Hosting runs one and <c>WithStellarStore()</c> asked for the writers in it.</summary>
    private ActorSystem? HostActorSystem()
    {
        // Akka.Hosting's builder is registered only where AddAkka was called; resolving the system creates the one the
        // host's Akka service then starts (a singleton), so the order of the two hosted services does not matter.
        if (_services.GetService(typeof(Akka.Hosting.AkkaConfigurationBuilder)) is null)
        {
            return null;
        }

        var system = _services.GetRequiredService<ActorSystem>();
        return system.Settings.Setup.Get<StellarStoreSetup>().HasValue ? system : null;
    }
}
