namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>Why a character's gold changed.</summary>
public enum LedgerReason : byte
{
    /// <summary>Starting gold of a new character.</summary>
    Grant = 1,

    /// <summary>Gold found while looting.</summary>
    Loot = 2,

    /// <summary>The fee paid to craft (gold leaves the economy).</summary>
    CraftFee = 3,

    /// <summary>Gold paid in a trade.</summary>
    TradePaid = 4,

    /// <summary>Gold received in a trade.</summary>
    TradeReceived = 5,
}
