using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>
/// A completed trade: the buyer paid <see cref="Gold"/> and gave <see cref="ItemToSeller"/> (0: none) for the
/// seller's <see cref="ItemToBuyer"/> (collection <c>trades</c>, keyed by id). Written in the same unit as both
/// characters, both items and both ledger legs.
/// </summary>
/// <param name="Id">The trade id, which the server acknowledges to the buyer's client.</param>
/// <param name="BuyerId">The character that asked for the trade.</param>
/// <param name="SellerId">The character it traded with.</param>
/// <param name="Gold">Gold paid by the buyer to the seller.</param>
/// <param name="ItemToBuyer">The item that went from seller to buyer.</param>
/// <param name="ItemToSeller">The item that went from buyer to seller, or 0.</param>
/// <param name="BuyerLedgerId">The ledger entry of the buyer's payment.</param>
/// <param name="SellerLedgerId">The ledger entry of the seller's receipt.</param>
[MessagePackObject]
public sealed record TradeRecord(
    [property: Key(0)] long Id,
    [property: Key(1)] long BuyerId,
    [property: Key(2)] long SellerId,
    [property: Key(3)] long Gold,
    [property: Key(4)] long ItemToBuyer,
    [property: Key(5)] long ItemToSeller,
    [property: Key(6)] long BuyerLedgerId,
    [property: Key(7)] long SellerLedgerId);
