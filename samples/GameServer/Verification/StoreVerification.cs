namespace Stellar.Store.Samples.GameServer.Verification;

/// <summary>The verification of a reopened store, with what the reopen took and found.</summary>
internal sealed record StoreVerification(VerificationResult Economy, TimeSpan OpenTime, long TruncatedBytes, long Accounts, long Positions, long Scores, long Chunks);
