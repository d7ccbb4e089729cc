namespace Stellar.Store.Tests.Api;

/// <summary>A mutable value keyed by a <see cref="SlotKey"/> it carries.</summary>
public sealed class Slot
{
    public SlotKey Key { get; set; } = new();

    public string Item { get; set; } = "";
}
