using MessagePack;

namespace Stellar.Store.Benchmarks.Model;

/// <summary>A large record: the small record's fields plus about 2 KB of text (a saved note, a chat log).</summary>
[MessagePackObject]
public sealed class LargeRecord
{
    /// <summary>The key.</summary>
    [Key(0)]
    public int Id { get; set; }

    /// <summary>A player name.</summary>
    [Key(1)]
    public string Name { get; set; } = "";

    /// <summary>A score.</summary>
    [Key(2)]
    public int Score { get; set; }

    /// <summary>When the player was last seen (UTC).</summary>
    [Key(3)]
    public DateTime LastSeen { get; set; }

    /// <summary>About 2 KB of English-like text.</summary>
    [Key(4)]
    public string Body { get; set; } = "";
}
