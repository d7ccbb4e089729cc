using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>
/// One atomic change of the game's economy, built on the tick thread: the accounts, characters, items, ledger entries
/// and trade it touches, each in its own collection. It is stored whole or not at all (one <c>store.WriteAsync</c>):
/// an insert of a key that exists, or an update of a key that does not, rejects the whole unit.
/// </summary>
/// <remarks>Not thread-safe: built and handed over on one thread.</remarks>
internal sealed class GameUnit
{
    public List<AccountRecord> NewAccounts { get; } = new();

    public List<CharacterRecord> NewCharacters { get; } = new();

    public List<CharacterRecord> Characters { get; } = new();

    public List<ItemRecord> NewItems { get; } = new();

    public List<ItemRecord> Items { get; } = new();

    public List<long> DeletedItems { get; } = new();

    public List<LedgerEntry> Ledger { get; } = new();

    public List<TradeRecord> Trades { get; } = new();

    /// <summary>Adds an account that must be new.</summary>
    public GameUnit Insert(AccountRecord account)
    {
        NewAccounts.Add(account);
        return this;
    }

    /// <summary>Adds a character that must be new.</summary>
    public GameUnit Insert(CharacterRecord character)
    {
        NewCharacters.Add(character);
        return this;
    }

    /// <summary>Adds the new state of a character that must exist.</summary>
    public GameUnit Update(CharacterRecord character)
    {
        Characters.Add(character);
        return this;
    }

    /// <summary>Adds an item that must be new (loot, crafting).</summary>
    public GameUnit Insert(ItemRecord item)
    {
        NewItems.Add(item);
        return this;
    }

    /// <summary>Adds the new state of an item that must exist (changing hands).</summary>
    public GameUnit Update(ItemRecord item)
    {
        Items.Add(item);
        return this;
    }

    /// <summary>Adds an item to delete (consumed by crafting).</summary>
    public GameUnit DeleteItem(long id)
    {
        DeletedItems.Add(id);
        return this;
    }

    /// <summary>Adds a ledger entry, which must be new.</summary>
    public GameUnit Insert(LedgerEntry entry)
    {
        Ledger.Add(entry);
        return this;
    }

    /// <summary>Adds a trade, which must be new.</summary>
    public GameUnit Insert(TradeRecord trade)
    {
        Trades.Add(trade);
        return this;
    }
}
