namespace Stellar.Store.Persistence.Storage;

/// <summary>One plugin's share of a <see cref="SharedStore"/>; disposing it lets go, and the last share closes the store.</summary>
/// <remarks>Thread safety: <see cref="DisposeAsync"/> may be called from any thread, and more than once.</remarks>
internal sealed class StoreLease(SharedStore store, Func<Task> release) : IAsyncDisposable
{
    private int _released;

    /// <summary>The shared store.</summary>
    public SharedStore Store { get; } = store;

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _released, 1) == 0)
        {
            await release().ConfigureAwait(false);
        }
    }
}
