using Akka.Event;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// The store at one directory that the plugins of one actor system share, across its opens: open until the last plugin
/// lets go, and opened again when it faulted (a storage failure such as a full disk, after which the store refuses every
/// write until it is reopened) or could not be opened for a cause that may pass (the directory locked by another
/// process, an I/O error), so that the plugins go on once the cause is gone rather than failing until the process
/// restarts. An open that failed for a cause only a person can mend (see <see cref="IsPermanent"/>) is not run again:
/// every call fails with its exception until the last plugin lets go (the actor system terminates).
/// </summary>
/// <remarks>
/// <para>A reopen recovers what the store's files hold, as a restart would: a write whose outcome was uncertain is kept or
/// not as the disk has it, never undone; and no open deletes or rewrites a committed block to make itself succeed. Writes,
/// deletes and snapshot calls still under way on the faulted store fail, and the calls after them use the reopened
/// store; a replay of the journal and a query of the read journal read on from where they were on the reopened
/// store.</para>
/// <para>Thread safety: every member may be called from any thread.</para>
/// </remarks>
internal sealed class StoreSlot
{
    private readonly object _gate = new();
    private readonly Func<Task<SharedStore>> _open;
    private readonly ILoggingAdapter _log;
    private Task<SharedStore> _current;
    private bool _closed;

    /// <summary>A slot whose store <paramref name="open"/> opens (now, and again after a fault or an open that failed for a cause that may pass).</summary>
    public StoreSlot(PluginSettings settings, string pluginId, Func<Task<SharedStore>> open, ILoggingAdapter log)
    {
        Settings = settings;
        PluginId = pluginId;
        _open = open;
        _log = log;
        _current = OpenAsync();
    }

    /// <summary>The settings the store was opened with.</summary>
    public PluginSettings Settings { get; }

    /// <summary>The plugin that opened the store first, for messages.</summary>
    public string PluginId { get; }

    /// <summary>Leases given and not yet released (under the lock of <see cref="SharedStores"/>).</summary>
    public int References { get; set; } = 1;

    /// <summary>
    /// The open store: the one being opened or reopened, or a new open when the last one failed for a cause that may pass
    /// (so that a cause that went away, a lock another process held, say, stops failing the plugins); the last open's
    /// failure, the same exception at every call, when its cause was permanent (see <see cref="IsPermanent"/>).
    /// </summary>
    /// <exception cref="ObjectDisposedException">The last plugin let go of the store.</exception>
    public Task<SharedStore> CurrentAsync()
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_closed, this);
            if (_current.IsCanceled || (_current.IsFaulted && !IsPermanent(_current.Exception!.InnerException!)))
            {
                _current = OpenAsync();
            }

            return _current;
        }
    }

    /// <summary>
    /// <paramref name="store"/> faulted (<paramref name="fault"/>): it is closed and the store opened again, once, however
    /// many operations saw the fault. Nothing when the store was already replaced or the slot closed.
    /// </summary>
    public void Faulted(SharedStore store, StoreFaultedException fault)
    {
        lock (_gate)
        {
            if (_closed || !_current.IsCompletedSuccessfully || !ReferenceEquals(_current.Result, store))
            {
                return;
            }

            _log.Warning(fault, "The store at '{0}' faulted; the persistence plugins reopen it, recovering what its files hold.", Settings.Path);
            _current = ReopenAsync(store);
        }
    }

    /// <summary>Closes the store, once its open or reopen under way ended; later calls of <see cref="CurrentAsync"/> throw.</summary>
    public async Task CloseAsync()
    {
        Task<SharedStore> current;
        lock (_gate)
        {
            _closed = true;
            current = _current;
        }

        SharedStore store;
        try
        {
            store = await current.ConfigureAwait(false);
        }
        catch (Exception)
        {
            // An open that failed left nothing to close; its failure reached the plugins' calls.
            return;
        }

        await store.DisposeAsync().ConfigureAwait(false);
    }

    private async Task<SharedStore> ReopenAsync(SharedStore faulted)
    {
        try
        {
            await faulted.DisposeAsync().ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // The close of a faulted store may fail in turn; the open below then fails on its lock, and the next call tries again.
            _log.Warning(e, "Closing the faulted store at '{0}' failed.", Settings.Path);
        }

        return await OpenAsync().ConfigureAwait(false);
    }

    /// <summary>Opens the store; a permanent failure is logged here, once, as the plugins will not open again.</summary>
    private async Task<SharedStore> OpenAsync()
    {
        try
        {
            return await _open().ConfigureAwait(false);
        }
        catch (Exception e) when (IsPermanent(e))
        {
            _log.Error(e, "The store at '{0}' cannot be opened with the persistence plugins' settings; they fail every call with this error, without opening again, until the actor system restarts.", Settings.Path);
            throw;
        }
    }

    /// <summary>
    /// Whether opening again cannot mend <paramref name="e"/> while the plugins run with the same settings: a wrong key or
    /// passphrase, a store of a newer format, damaged or stale files (which the open refuses rather than change), options
    /// the store refuses. Opening again would only fail again, after the key derivation, which is slow on purpose.
    /// </summary>
    private static bool IsPermanent(Exception e) =>
        e is WrongKeyException or IncompatibleFormatException or CorruptBlockException or CorruptStoreException or StaleManifestException or ArgumentException;
}
