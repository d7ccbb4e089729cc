namespace Stellar.Store.Tool.Tests;

/// <summary>A second value type of the game, for writes across collections.</summary>
public sealed record Guild
{
    public string Name { get; set; } = "";

    public int Members { get; set; }
}
