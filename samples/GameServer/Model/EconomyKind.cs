namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>The kinds of record that share the <c>economy</c> collection.</summary>
public enum EconomyKind : byte
{
    /// <summary>A <see cref="CharacterRecord"/>.</summary>
    Character = 1,

    /// <summary>An <see cref="ItemRecord"/>.</summary>
    Item = 2,

    /// <summary>A <see cref="LedgerEntry"/>.</summary>
    Ledger = 3,

    /// <summary>A <see cref="TradeRecord"/>.</summary>
    Trade = 4,
}
