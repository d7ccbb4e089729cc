using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Verification;

/// <summary>
/// Checks the economy's invariants over its collections, read at one consistent cut (a store snapshot), so that every
/// unit is in it whole or not at all:
/// <list type="bullet">
/// <item>accounts: every account has its character, and every character its account;</item>
/// <item>gold: every character's gold equals the sum of its ledger entries, so total gold equals the ledger's sum;</item>
/// <item>items: every item is in exactly one inventory, its owner's, and every inventory entry is an item that exists;</item>
/// <item>trades: every trade has both ledger legs (paid and received, same amount, the right characters), and every
/// ledger entry of a trade has its trade, so no trade is half applied;</item>
/// <item>sessions: every live session names a character that exists, under its account;</item>
/// <item>optionally, every trade id in a given list (the trades the server acknowledged) is there;</item>
/// <item>optionally, no session of a given server run is live: the run stopped cleanly, so each of its players
/// logged out (a crashed run's sessions stay live until their lease ends).</item>
/// </list>
/// </summary>
internal static class EconomyVerifier
{
    private const int DescribedFailures = 20;

    /// <param name="state">The records, as of one consistent cut.</param>
    /// <param name="acknowledgedTrades">Trades the server acknowledged, which must be there.</param>
    /// <param name="stoppedRun">A server run that stopped cleanly, none of whose sessions may be live.</param>
    public static VerificationResult Verify(EconomyState state, IReadOnlyCollection<long>? acknowledgedTrades = null, Guid? stoppedRun = null)
    {
        var accounts = state.Accounts.ToDictionary(a => a.Name, StringComparer.Ordinal);
        var characters = state.Characters.ToDictionary(c => c.Id);
        var items = state.Items.ToDictionary(i => i.Id);
        var ledger = state.Ledger.ToDictionary(l => l.Id);
        var trades = state.Trades.ToDictionary(t => t.Id);
        var sessions = state.Sessions.ToList();

        var failures = new List<string>();
        var count = 0;
        void Fail(string failure)
        {
            if (++count <= DescribedFailures)
            {
                failures.Add(failure);
            }
        }

        CheckAccounts(accounts, characters, Fail);
        CheckGold(characters, ledger, Fail);
        CheckItems(characters, items, Fail);
        CheckTrades(trades, ledger, Fail);
        CheckSessions(sessions, characters, stoppedRun, Fail);
        foreach (var tradeId in acknowledgedTrades ?? [])
        {
            if (!trades.ContainsKey(tradeId))
            {
                Fail($"acknowledged trade {tradeId} is missing");
            }
        }

        return new VerificationResult(failures, count, accounts.Count, characters.Count, items.Count, ledger.Count, trades.Count, sessions.Count,
            characters.Values.Sum(c => c.Gold), ledger.Values.Sum(l => l.Delta));
    }

    private static void CheckAccounts(Dictionary<string, AccountRecord> accounts, Dictionary<long, CharacterRecord> characters, Action<string> fail)
    {
        foreach (var account in accounts.Values)
        {
            if (!characters.TryGetValue(account.CharacterId, out var character))
            {
                fail($"account '{account.Name}' lacks its character {account.CharacterId}");
            }
            else if (character.Name != account.Name)
            {
                fail($"account '{account.Name}' names character {account.CharacterId}, which belongs to '{character.Name}'");
            }
        }

        foreach (var character in characters.Values)
        {
            if (!accounts.TryGetValue(character.Name, out var account) || account.CharacterId != character.Id)
            {
                fail($"character {character.Id} ('{character.Name}') has no account naming it");
            }
        }
    }

    private static void CheckGold(Dictionary<long, CharacterRecord> characters, Dictionary<long, LedgerEntry> ledger, Action<string> fail)
    {
        var byCharacter = ledger.Values.GroupBy(l => l.CharacterId).ToDictionary(g => g.Key, g => g.Sum(l => l.Delta));
        foreach (var character in characters.Values)
        {
            var sum = byCharacter.GetValueOrDefault(character.Id);
            if (character.Gold != sum)
            {
                fail($"character {character.Id} has {character.Gold} gold but its ledger sums to {sum}");
            }

            if (character.Gold < 0)
            {
                fail($"character {character.Id} has negative gold {character.Gold}");
            }
        }

        foreach (var orphan in byCharacter.Keys.Where(id => !characters.ContainsKey(id)))
        {
            fail($"ledger entries for character {orphan}, which does not exist");
        }

        var total = characters.Values.Sum(c => c.Gold);
        var ledgerSum = ledger.Values.Sum(l => l.Delta);
        if (total != ledgerSum)
        {
            fail($"total gold {total} differs from the ledger's sum {ledgerSum}");
        }
    }

    private static void CheckItems(Dictionary<long, CharacterRecord> characters, Dictionary<long, ItemRecord> items, Action<string> fail)
    {
        var carriedBy = new Dictionary<long, long>();
        foreach (var character in characters.Values)
        {
            foreach (var itemId in character.Inventory)
            {
                if (!carriedBy.TryAdd(itemId, character.Id))
                {
                    fail($"item {itemId} is carried twice (by {carriedBy[itemId]} and {character.Id})");
                }
                else if (!items.TryGetValue(itemId, out var item))
                {
                    fail($"character {character.Id} carries item {itemId}, which does not exist");
                }
                else if (item.OwnerId != character.Id)
                {
                    fail($"character {character.Id} carries item {itemId}, whose owner is {item.OwnerId}");
                }
            }
        }

        foreach (var item in items.Values.Where(i => !carriedBy.ContainsKey(i.Id)))
        {
            fail($"item {item.Id} (owner {item.OwnerId}) is in no inventory");
        }
    }

    private static void CheckSessions(List<SessionRecord> sessions, Dictionary<long, CharacterRecord> characters, Guid? stoppedRun, Action<string> fail)
    {
        foreach (var session in sessions)
        {
            if (!characters.TryGetValue(session.CharacterId, out var character))
            {
                fail($"session of character {session.CharacterId} ('{session.Account}'), which does not exist");
            }
            else if (character.Name != session.Account)
            {
                fail($"session of character {session.CharacterId} names account '{session.Account}', but the character belongs to '{character.Name}'");
            }

            if (session.ServerRunId == stoppedRun)
            {
                fail($"session of character {session.CharacterId} ('{session.Account}') is live, though its server run stopped and every player logged out");
            }
        }
    }

    private static void CheckTrades(Dictionary<long, TradeRecord> trades, Dictionary<long, LedgerEntry> ledger, Action<string> fail)
    {
        foreach (var trade in trades.Values)
        {
            CheckLeg(trade, trade.BuyerLedgerId, trade.BuyerId, -trade.Gold, "paid");
            CheckLeg(trade, trade.SellerLedgerId, trade.SellerId, trade.Gold, "received");
        }

        foreach (var entry in ledger.Values.Where(l => l.TradeId != 0 && !trades.ContainsKey(l.TradeId)))
        {
            fail($"ledger entry {entry.Id} belongs to trade {entry.TradeId}, which does not exist");
        }

        void CheckLeg(TradeRecord trade, long entryId, long characterId, long delta, string leg)
        {
            if (!ledger.TryGetValue(entryId, out var entry))
            {
                fail($"trade {trade.Id} lacks its {leg} ledger entry {entryId}");
            }
            else if (entry.TradeId != trade.Id || entry.CharacterId != characterId || entry.Delta != delta)
            {
                fail($"trade {trade.Id}: {leg} entry {entryId} is ({entry.CharacterId}, {entry.Delta}, trade {entry.TradeId}), expected ({characterId}, {delta}, trade {trade.Id})");
            }
        }
    }
}
