using MessagePack;

namespace Stellar.Store.Benchmarks.Model;

/// <summary>The small record of the peer benchmarks: an int id, a name, an int and a date (about 40 bytes as MessagePack).</summary>
[MessagePackObject]
public sealed class SmallRecord
{
    /// <summary>The key (LiteDB maps <c>Id</c> to <c>_id</c>).</summary>
    [Key(0)]
    public int Id { get; set; }

    /// <summary>A player name.</summary>
    [Key(1)]
    public string Name { get; set; } = "";

    /// <summary>A score, the leaderboard's sort field.</summary>
    [Key(2)]
    public int Score { get; set; }

    /// <summary>When the player was last seen (UTC).</summary>
    [Key(3)]
    public DateTime LastSeen { get; set; }
}
