using Stellar.Store.Samples.GameServer.Bots;
using Stellar.Store.Samples.GameServer.Server;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// What a bot run measured and whether the state verified: <see cref="Live"/> in the open store (or the dictionaries)
/// through one consistent cut once the server stopped, and <see cref="Verification"/> after the store was reopened (for
/// the dictionaries, the same as <see cref="Live"/>).
/// </summary>
internal sealed record RunResult(
    BotReport Bots,
    TimeSpan Played,
    TickSummary Ticks,
    Exception? StoreFault,
    VerificationResult Live,
    VerificationResult Verification,
    StoreVerification? Reopened,
    MemoryReport Memory)
{
    /// <summary>The newest checkpoint of the run (<c>--checkpoint-every</c>), verified like the store; null when none was taken.</summary>
    public VerificationResult? Checkpoint { get; init; }

    public bool Succeeded => StoreFault is null && Live.Ok && Verification.Ok && Checkpoint?.Ok != false;
}
