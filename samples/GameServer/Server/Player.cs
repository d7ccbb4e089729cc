using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>An online character: the authoritative, mutable state the tick works on. Tick thread only.</summary>
internal sealed class Player
{
    public Player(CharacterRecord record, IEnumerable<ItemRecord> items, long bestScore, Session session)
    {
        Id = record.Id;
        Name = record.Name;
        Gold = record.Gold;
        X = record.X;
        Y = record.Y;
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

    /// <summary>Whether the position changed since the character was last written.</summary>
    public bool Moved { get; set; }

    /// <summary>The character as it is now, to store; clears <see cref="Moved"/>, since the record carries the position.</summary>
    public CharacterRecord ToRecord()
    {
        Moved = false;
        return new CharacterRecord(Id, Name, Gold, X, Y, Items.ConvertAll(i => i.Id).ToArray());
    }
}
