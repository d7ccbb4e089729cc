using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>
/// One atomic change of the economy, built on the tick thread: the characters, items, ledger entries and trade it
/// touches. It is stored whole or not at all; an insert of a key that exists rejects the whole batch.
/// </summary>
internal sealed class EconomyBatch
{
    public List<EconomyRecord> Inserts { get; } = new();

    public List<EconomyRecord> Upserts { get; } = new();

    public List<EconomyKey> Deletes { get; } = new();

    /// <summary>Adds a record that must be new (ledger entries, trades, new items).</summary>
    public EconomyBatch Insert(EconomyRecord record)
    {
        Inserts.Add(record);
        return this;
    }

    /// <summary>Adds a record that replaces the stored one (characters, items changing hands).</summary>
    public EconomyBatch Upsert(EconomyRecord record)
    {
        Upserts.Add(record);
        return this;
    }

    /// <summary>Adds a record to delete (items consumed by crafting).</summary>
    public EconomyBatch Delete(EconomyKey key)
    {
        Deletes.Add(key);
        return this;
    }
}
