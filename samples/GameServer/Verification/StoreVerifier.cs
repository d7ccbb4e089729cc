using System.Diagnostics;
using Stellar.Store.Samples.GameServer.Persistence;

namespace Stellar.Store.Samples.GameServer.Verification;

/// <summary>Opens a game store directory (recovering it as any open does), verifies the economy, and closes it.</summary>
internal static class StoreVerifier
{
    /// <exception cref="DirectoryNotFoundException">The directory holds no store.</exception>
    public static async Task<StoreVerification> VerifyAsync(string directory, IReadOnlyCollection<long>? acknowledgedTrades = null)
    {
        // Opening a directory without a store would create one: refuse instead.
        if (!File.Exists(Path.Combine(directory, "MANIFEST")))
        {
            throw new DirectoryNotFoundException($"'{directory}' holds no store (no MANIFEST).");
        }

        var stopwatch = Stopwatch.StartNew();
        await using var store = await StellarStore.OpenAsync(directory).ConfigureAwait(false);
        var collections = new GameCollections(store);
        var opened = stopwatch.Elapsed;
        using var economy = collections.Economy.Snapshot();
        var result = EconomyVerifier.Verify(economy.Query(), acknowledgedTrades);
        return new StoreVerification(result, opened, store.Recovery.TruncatedBytes,
            collections.Accounts.Count, collections.Leaderboard.Count, collections.Chunks.Count);
    }
}
