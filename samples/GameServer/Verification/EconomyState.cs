using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Verification;

/// <summary>
/// The records of the economy's collections and the live sessions, as of one consistent cut, for
/// <see cref="EconomyVerifier"/>; each enumerated once.
/// </summary>
internal sealed record EconomyState(
    IEnumerable<AccountRecord> Accounts,
    IEnumerable<CharacterRecord> Characters,
    IEnumerable<ItemRecord> Items,
    IEnumerable<LedgerEntry> Ledger,
    IEnumerable<TradeRecord> Trades,
    IEnumerable<SessionRecord> Sessions);
