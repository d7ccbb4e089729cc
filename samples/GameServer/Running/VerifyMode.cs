using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary><c>--verify DIR</c>: opens an existing store (recovering it), checks the invariants, and says so.</summary>
internal static class VerifyMode
{
    public static async Task<int> RunAsync(string directory, TextWriter output)
    {
        StoreVerification verification;
        try
        {
            verification = await StoreVerifier.VerifyAsync(directory).ConfigureAwait(false);
        }
        catch (Exception e) when (e is DirectoryNotFoundException or StellarStoreException or OlderLayoutException)
        {
            output.WriteLine($"cannot verify '{directory}': {e.Message}");
            return 2;
        }

        var v = verification.Economy;
        output.WriteLine($"opened '{directory}' in {verification.OpenTime.TotalMilliseconds:N0} ms (torn tail cut: {verification.TruncatedBytes} bytes); " +
            $"{verification.Accounts:N0} accounts, {verification.Positions:N0} positions, {verification.Scores:N0} scores, {verification.Chunks:N0} chunks");
        output.WriteLine("read through one store snapshot: every unit across collections is in it whole or not at all");
        output.WriteLine($"{v.Accounts:N0} accounts each with its character; gold {v.TotalGold:N0} = ledger sum {v.LedgerSum:N0} over {v.LedgerEntries:N0} entries, {v.Characters:N0} characters, {v.Items:N0} items, {v.Trades:N0} trades");
        output.WriteLine($"{v.Sessions:N0} live sessions, each of a stored character (a crashed server's lapse at the end of their lease)");
        foreach (var failure in v.Failures)
        {
            output.WriteLine($"FAILED: {failure}");
        }

        output.WriteLine(v.Ok ? "verification OK" : $"verification FAILED ({v.FailureCount} problems)");

        // Each checkpoint is one consistent cut of the game: the same invariants hold in it.
        var ok = v.Ok;
        foreach (var checkpoint in StellarStore.ListCheckpoints(directory))
        {
            var c = (await StoreVerifier.VerifyCheckpointAsync(checkpoint.Path).ConfigureAwait(false)).Economy;
            output.WriteLine($"checkpoint {checkpoint.Name}: gold {c.TotalGold:N0} = ledger sum {c.LedgerSum:N0}, {c.Characters:N0} characters, {c.Items:N0} items, {c.Trades:N0} trades: " +
                (c.Ok ? "verification OK" : $"verification FAILED ({c.FailureCount} problems)"));
            foreach (var failure in c.Failures)
            {
                output.WriteLine($"FAILED: {failure}");
            }

            ok &= c.Ok;
        }

        return ok ? 0 : 1;
    }
}
