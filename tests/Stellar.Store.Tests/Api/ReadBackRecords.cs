using MessagePack;

namespace Stellar.Store.Tests.Api;

/// <summary>A record under a key with text inside: read back by decoding, compared by the key's value equality.</summary>
[MessagePackObject]
public sealed record Quest([property: Key(0)] QuestId Id, [property: Key(1)] int Step);

[MessagePackObject]
public sealed record QuestId([property: Key(0)] string Realm, [property: Key(1)] int Number);

/// <summary>A record under a key of a class without value equality: no two instances are the same key.</summary>
public sealed class Ticket
{
    public TicketId Id { get; set; } = new();

    public int Seat { get; set; }
}

public sealed class TicketId
{
    public int Number { get; set; }
}

/// <summary>A record under a date, as a daily leaderboard's may be.</summary>
[MessagePackObject]
public sealed record DailyBoard([property: Key(0)] DateTime Day, [property: Key(1)] int Entries);
