using Stellar.Store.Samples.GameServer.Bots;
using Stellar.Store.Samples.GameServer.Server;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>What a bot run measured and whether the state verified.</summary>
internal sealed record RunResult(
    BotReport Bots,
    TimeSpan Played,
    TickSummary Ticks,
    Exception? StoreFault,
    VerificationResult Verification,
    StoreVerification? Reopened,
    MemoryReport Memory)
{
    public bool Succeeded => StoreFault is null && Verification.Ok;
}
