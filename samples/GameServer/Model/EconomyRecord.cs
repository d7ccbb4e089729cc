using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>
/// A record of the <c>economy</c> collection. Characters, items, ledger entries and trades share one collection
/// because an atomic <c>WriteAsync</c> covers one collection: every change of gold or items is one batch holding
/// the characters, the items and the ledger entries it touches, so it is on disk whole or not at all.
/// </summary>
[Union(0, typeof(CharacterRecord))]
[Union(1, typeof(ItemRecord))]
[Union(2, typeof(LedgerEntry))]
[Union(3, typeof(TradeRecord))]
public abstract record EconomyRecord
{
    /// <summary>The record's key in the collection.</summary>
    [IgnoreMember]
    public abstract EconomyKey Key { get; }
}
