namespace Stellar.Store.Persistence.Storage;

/// <summary>One plugin's share of a <see cref="StoreSlot"/>; disposing it lets go, and the last share closes the store.</summary>
/// <remarks>Thread safety: every member may be called from any thread; <see cref="DisposeAsync"/> more than once.</remarks>
internal sealed class StoreLease(StoreSlot slot, Func<Task> release) : IAsyncDisposable
{
    private int _released;

    /// <summary>The shared store as it is open now (see <see cref="StoreSlot.CurrentAsync"/>).</summary>
    public Task<SharedStore> StoreAsync() => slot.CurrentAsync();

    /// <summary>
    /// Runs <paramref name="use"/> on the shared store; when it throws <see cref="StoreFaultedException"/>, the store is
    /// reopened for the calls after it (see <see cref="StoreSlot.Faulted"/>), and the exception goes on to the caller.
    /// </summary>
    public async Task<T> UseAsync<T>(Func<SharedStore, Task<T>> use)
    {
        var store = await slot.CurrentAsync().ConfigureAwait(false);
        try
        {
            return await use(store).ConfigureAwait(false);
        }
        catch (StoreFaultedException e)
        {
            slot.Faulted(store, e);
            throw;
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _released, 1) == 0)
        {
            await release().ConfigureAwait(false);
        }
    }
}
