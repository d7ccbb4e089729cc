namespace Stellar.Store.Tool.Tests;

/// <summary>A game's value type, which the tool cannot load: it reads and writes it as MessagePack only.</summary>
public sealed record Player
{
    public int Id { get; set; }

    public string Name { get; set; } = "";

    public int Level { get; set; }

    public static Player Make(int id) => new() { Id = id, Name = $"player-{id}-" + new string((char)('a' + id % 26), 20), Level = id % 60 };
}
