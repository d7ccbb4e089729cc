namespace Stellar.Store.Samples.GameServer.Verification;

/// <summary>What <see cref="EconomyVerifier"/> found: counts, and every broken invariant (the first few described).</summary>
internal sealed record VerificationResult(
    IReadOnlyList<string> Failures,
    int FailureCount,
    int Accounts,
    int Characters,
    int Items,
    int LedgerEntries,
    int Trades,
    long TotalGold,
    long LedgerSum)
{
    public bool Ok => FailureCount == 0;
}
