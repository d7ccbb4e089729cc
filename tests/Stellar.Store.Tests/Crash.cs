using Stellar.Store.Storage;

namespace Stellar.Store.Tests;

/// <summary>The end of a process, or of the machine, in the middle of a test's session on <see cref="MemoryStorage"/>.</summary>
internal static class Crash
{
    /// <summary>
    /// Crashes <paramref name="storage"/> as <see cref="MemoryStorage.SimulateCrash"/> does, then disposes
    /// <paramref name="store"/>, whose process is gone: what its dispose throws (its storage died under it) is
    /// recorded and returned, never thrown, and it stops the store's actors so the test leaks none.
    /// </summary>
    public static async Task<Exception?> AndAbandonAsync(MemoryStorage storage, StellarStore store, bool losesUnsyncedData, Random? tornTail = null)
    {
        storage.SimulateCrash(losesUnsyncedData, tornTail);
        return await Record.ExceptionAsync(async () => await store.DisposeAsync());
    }
}
