using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>An online character: the authoritative, mutable state the tick works on. Tick thread only.</summary>
internal sealed class Player
{
    public Player(CharacterRecord record, PositionRecord position, IEnumerable<ItemRecord> items, long bestScore, Session session)
    {
        Id = record.Id;
        Name = record.Name;
        Gold = record.Gold;
        X = position.X;
        Y = position.Y;
        Items = items.ToList();
        BestScore = bestScore;
        Session = session;
    }

    public long Id { get; }

    public string Name { get; }

    public long Gold { get; set; }

    public int X { get; set; }

    public int Y { get; set; }

    /// <summary>The items carried, in the order of the stored inventory.</summary>
    public List<ItemRecord> Items { get; }

    public long BestScore { get; set; }

    public Session Session { get; }

    /// <summary>When the login completed, for the session record.</summary>
    public DateTime LoggedInUtc { get; init; }

    /// <summary>Whether its session was written (once the login was stored); from then on the tick renews it until the logout deletes it.</summary>
    public bool HasSession { get; set; }

    /// <summary>Whether the position changed since it was last written.</summary>
    public bool Moved { get; set; }

    /// <summary>
    /// The last unit that changed this character (its own or a trade partner's): units are stored in the order they
    /// were issued, so once it is stored, every earlier change of the character is too.
    /// </summary>
    public Task LastUnit { get; set; } = Task.CompletedTask;

    /// <summary>The login's write: the account's new login count, or the unit that created the account.</summary>
    public Task LoginWrite { get; set; } = Task.CompletedTask;

    /// <summary>
    /// The last write of the character's best score: plain writes to a collection are stored in the order they were
    /// issued, so once it is stored, every earlier one is too.
    /// </summary>
    public Task LastScore { get; set; } = Task.CompletedTask;

    /// <summary>The character as it is now, to store in a unit.</summary>
    public CharacterRecord ToRecord() => new(Id, Name, Gold, Items.ConvertAll(i => i.Id).ToArray());

    /// <summary>The position as it is now, to store; clears <see cref="Moved"/>.</summary>
    public PositionRecord ToPosition()
    {
        Moved = false;
        return new PositionRecord(Id, X, Y);
    }
}
