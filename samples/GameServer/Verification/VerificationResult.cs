namespace Stellar.Store.Samples.GameServer.Verification;

/// <summary>What <see cref="EconomyVerifier"/> found: counts (of sessions, the live ones), and every broken invariant (the first few described).</summary>
internal sealed record VerificationResult(
    IReadOnlyList<string> Failures,
    int FailureCount,
    int Accounts,
    int Characters,
    int Items,
    int LedgerEntries,
    int Trades,
    int Sessions,
    long TotalGold,
    long LedgerSum)
{
    public bool Ok => FailureCount == 0;
}
