namespace Stellar.Store.Tests.Api;

/// <summary>A key with value equality whose members can be set: a record class, as a game may use for a composite key.</summary>
public sealed record SlotKey
{
    public string Zone { get; set; } = "";

    public int Slot { get; set; }
}
