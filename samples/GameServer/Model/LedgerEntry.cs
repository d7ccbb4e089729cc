using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>
/// One change of one character's gold (collection <c>ledger</c>, keyed by id). The ledger is append-only: entries are
/// inserted, never changed, each in the same unit as the character whose gold it changes.
/// </summary>
/// <param name="Id">The entry id.</param>
/// <param name="CharacterId">Whose gold changed.</param>
/// <param name="Delta">By how much (negative when gold was spent).</param>
/// <param name="Reason">Why.</param>
/// <param name="TradeId">The trade this entry is a leg of, or 0.</param>
[MessagePackObject]
public sealed record LedgerEntry(
    [property: Key(0)] long Id,
    [property: Key(1)] long CharacterId,
    [property: Key(2)] long Delta,
    [property: Key(3)] LedgerReason Reason,
    [property: Key(4)] long TradeId);
