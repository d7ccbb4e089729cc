namespace Stellar.Store.Tests.Api;

/// <summary>A mutable game object (contractless), as a server keeps one per player and changes it between saves.</summary>
public sealed class Hero
{
    public int Id { get; set; }

    public long Gold { get; set; }

    public List<string> Items { get; set; } = new();
}
