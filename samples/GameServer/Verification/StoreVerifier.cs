using System.Diagnostics;
using Stellar.Store.Samples.GameServer.Persistence;

namespace Stellar.Store.Samples.GameServer.Verification;

/// <summary>Opens a game store directory (recovering it as any open does), verifies the economy and the sessions, and closes it.</summary>
internal static class StoreVerifier
{
    /// <param name="directory">The store directory.</param>
    /// <param name="acknowledgedTrades">Trades the server acknowledged, which must be there.</param>
    /// <param name="stoppedRun">A server run that stopped cleanly, none of whose sessions may be live.</param>
    /// <exception cref="DirectoryNotFoundException">The directory holds no store.</exception>
    /// <exception cref="OlderLayoutException">The store was written by the older layout of the sample.</exception>
    public static async Task<StoreVerification> VerifyAsync(string directory, IReadOnlyCollection<long>? acknowledgedTrades = null, Guid? stoppedRun = null)
    {
        // Opening a directory without a store would create one: refuse instead.
        if (!File.Exists(Path.Combine(directory, "MANIFEST")))
        {
            throw new DirectoryNotFoundException($"'{directory}' holds no store (no MANIFEST).");
        }

        var stopwatch = Stopwatch.StartNew();
        await using var store = await StellarStore.OpenAsync(directory).ConfigureAwait(false);
        return Verify(store, stopwatch, acknowledgedTrades, stoppedRun);
    }

    /// <summary>
    /// Opens the checkpoint at <paramref name="checkpoint"/> read-only (it is never changed) and verifies the economy
    /// and the sessions in it: a checkpoint is one consistent cut, so every invariant holds in it as in the store.
    /// </summary>
    public static async Task<StoreVerification> VerifyCheckpointAsync(string checkpoint)
    {
        var stopwatch = Stopwatch.StartNew();
        await using var store = await StellarStore.OpenReadOnlyAsync(checkpoint).ConfigureAwait(false);
        return Verify(store, stopwatch, acknowledgedTrades: null, stoppedRun: null);
    }

    private static StoreVerification Verify(StellarStore store, Stopwatch stopwatch, IReadOnlyCollection<long>? acknowledgedTrades, Guid? stoppedRun)
    {
        var collections = GameCollections.Open(store);
        var opened = stopwatch.Elapsed;
        var result = StellarGameStore.Verify(store, collections, acknowledgedTrades, stoppedRun);
        return new StoreVerification(result, opened, store.Recovery.TruncatedBytes,
            collections.Accounts.Count, collections.Positions.Count, collections.Leaderboard.Count, collections.Chunks.Count);
    }
}
