using Stellar.Store.Storage;
using Stellar.Store.Tests.Reliability;

namespace Stellar.Store.Tests;

/// <summary>The end of a process, or of the machine, in the middle of a test's session on <see cref="MemoryStorage"/>.</summary>
internal static class Crash
{
    /// <summary>
    /// Crashes <paramref name="storage"/> as <see cref="MemoryStorage.SimulateCrash"/> does, then abandons
    /// <paramref name="store"/> (see <see cref="AbandonAsync"/>).
    /// </summary>
    public static async Task<Exception?> AndAbandonAsync(MemoryStorage storage, StellarStore store, bool losesUnsyncedData, Random? tornTail = null)
    {
        storage.SimulateCrash(losesUnsyncedData, tornTail);
        return await AbandonAsync(store);
    }

    /// <summary>
    /// Crashes <paramref name="storage"/> through <paramref name="fence"/>, the boundary of the process that owns
    /// <paramref name="store"/>, so that nothing that process still runs (a background compaction, a flusher)
    /// writes after the crash; then abandons <paramref name="store"/> (see <see cref="AbandonAsync"/>).
    /// </summary>
    public static async Task<Exception?> AndAbandonAsync(CrashFence fence, MemoryStorage storage, StellarStore store, bool losesUnsyncedData, Random? tornTail = null)
    {
        fence.Crash(() => storage.SimulateCrash(losesUnsyncedData, tornTail));
        return await AbandonAsync(store);
    }

    /// <summary>
    /// Disposes <paramref name="store"/>, whose process is gone or whose storage failed under it: what its dispose
    /// throws is recorded and returned, never thrown, and it stops the store's actors so the test leaks none.
    /// </summary>
    public static async Task<Exception?> AbandonAsync(StellarStore store) =>
        await Record.ExceptionAsync(async () => await store.DisposeAsync());
}
