using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// Play that changes gold or items. Each action is one unit across the collections it touches (characters, items,
/// ledger, trades), so the stored gold always equals the stored ledger, whatever moment a crash picks.
/// </summary>
internal sealed partial class World
{
    private static readonly string[] ItemKinds = ["sword", "shield", "potion", "ring", "bow", "helmet", "gem", "scroll"];

    private static void Move(Player player, GameProtocol.Move move)
    {
        player.X = Math.Clamp(player.X + Math.Clamp(move.Dx, -4, 4), 0, WorldChunks.WorldSize - 1);
        player.Y = Math.Clamp(player.Y + Math.Clamp(move.Dy, -4, 4), 0, WorldChunks.WorldSize - 1);
        player.Moved = true;

        // Positions are not worth a disk wait: the reply goes now, the position is written within a second.
        player.Session.Send(new GameProtocol.Done(move.RequestId));
    }

    private void Loot(Player player, GameProtocol.Loot loot)
    {
        if (player.Items.Count >= MaxItems)
        {
            player.Session.Send(new GameProtocol.Refused(loot.RequestId, "inventory full"));
            return;
        }

        var item = new ItemRecord(NextId(), player.Id, ItemKinds[_random.Next(ItemKinds.Length)], 1);
        var gold = 1 + _random.Next(20);
        player.Items.Add(item);
        player.Gold += gold;
        var write = Write(
            new GameUnit()
                .Update(player.ToRecord())
                .Insert(item)
                .Insert(new LedgerEntry(NextId(), player.Id, gold, LedgerReason.Loot, 0)),
            player);
        ReplyWhenStored(write, WriteKind.Loot, player.Session, new GameProtocol.Looted(loot.RequestId, item.Id, gold));
    }

    private void Craft(Player player, GameProtocol.Craft craft)
    {
        if (player.Items.Count < 2 || player.Gold < CraftFee)
        {
            player.Session.Send(new GameProtocol.Refused(craft.RequestId, "need two items and the fee"));
            return;
        }

        var first = player.Items[0];
        var second = player.Items[1];
        var made = new ItemRecord(NextId(), player.Id, first.Kind, Math.Max(first.Tier, second.Tier) + 1);
        player.Items.RemoveRange(0, 2);
        player.Items.Add(made);
        player.Gold -= CraftFee;
        var write = Write(
            new GameUnit()
                .Update(player.ToRecord())
                .DeleteItem(first.Id)
                .DeleteItem(second.Id)
                .Insert(made)
                .Insert(new LedgerEntry(NextId(), player.Id, -CraftFee, LedgerReason.CraftFee, 0)),
            player);
        ReplyWhenStored(write, WriteKind.Craft, player.Session, new GameProtocol.Crafted(craft.RequestId, made.Id, made.Tier));
    }

    /// <summary>
    /// The buyer pays gold and gives one of its items (if it has any) for one of the seller's. Both characters,
    /// both items, both ledger legs and the trade record are one unit across four collections: a trade is stored whole
    /// or not at all.
    /// </summary>
    private void Trade(Player buyer, GameProtocol.Trade trade)
    {
        var gold = Math.Min(Math.Max(trade.Gold, 1), buyer.Gold);
        var seller = FindSeller(buyer);
        if (gold < 1 || seller is null)
        {
            buyer.Session.Send(new GameProtocol.Refused(trade.RequestId, gold < 1 ? "no gold" : "nobody to trade with"));
            return;
        }

        var toBuyer = seller.Items[_random.Next(seller.Items.Count)];
        var toSeller = buyer.Items.Count > 0 ? buyer.Items[_random.Next(buyer.Items.Count)] : null;
        var tradeId = NextId();
        var record = new TradeRecord(tradeId, buyer.Id, seller.Id, gold, toBuyer.Id, toSeller?.Id ?? 0, NextId(), NextId());

        var unit = new GameUnit();
        seller.Items.Remove(toBuyer);
        var received = toBuyer with { OwnerId = buyer.Id };
        buyer.Items.Add(received);
        unit.Update(received);
        if (toSeller is not null)
        {
            buyer.Items.Remove(toSeller);
            var given = toSeller with { OwnerId = seller.Id };
            seller.Items.Add(given);
            unit.Update(given);
        }

        buyer.Gold -= gold;
        seller.Gold += gold;
        unit.Update(buyer.ToRecord())
            .Update(seller.ToRecord())
            .Insert(new LedgerEntry(record.BuyerLedgerId, buyer.Id, -gold, LedgerReason.TradePaid, tradeId))
            .Insert(new LedgerEntry(record.SellerLedgerId, seller.Id, gold, LedgerReason.TradeReceived, tradeId))
            .Insert(record);
        ReplyWhenStored(Write(unit, buyer, seller), WriteKind.Trade, buyer.Session, new GameProtocol.Traded(trade.RequestId, tradeId, seller.Id));
    }

    private Player? FindSeller(Player buyer)
    {
        for (var attempt = 0; attempt < 8 && _players.Count > 1; attempt++)
        {
            var candidate = _players[_random.Next(_players.Count)];
            if (candidate != buyer && candidate.Items.Count > 0)
            {
                return candidate;
            }
        }

        return null;
    }

    private void SubmitScore(Player player, GameProtocol.SubmitScore score)
    {
        // A score written before the unit that creates the character could outlive it in a crash, and be the best
        // score of the next character given its id. A client that waits for its login reply never meets this.
        if (!player.LoginWrite.IsCompletedSuccessfully)
        {
            player.Session.Send(new GameProtocol.Refused(score.RequestId, "login not stored yet"));
            return;
        }

        if (score.Score <= player.BestScore)
        {
            player.Session.Send(new GameProtocol.Done(score.RequestId));
            return;
        }

        player.BestScore = score.Score;
        var write = _store.UpsertScoreAsync(new ScoreRecord(player.Id, player.Name, score.Score));
        player.LastScore = write;
        ReplyWhenStored(write, WriteKind.Score, player.Session, new GameProtocol.Done(score.RequestId));
    }
}
