using MessagePack;

namespace Stellar.Store.Tests.Codecs.Evolution;

// Version 2 of the types in Stellar.Store.Tests.RecordsV1, under the same full names, changed the ways
// docs/evolving-records.md allows.

/// <summary>Version 2: <c>Title</c> removed; <c>Gold</c> (with an initializer) and <c>Badges</c> added.</summary>
public sealed class Hero
{
    public string Id { get; set; } = "";

    public int Level { get; set; }

    public long Gold { get; set; } = 100;

    public List<string> Badges { get; set; } = ["newcomer"];
}

/// <summary>Version 2: key 2 (<c>Motto</c>) retired, never reused; <c>Rank</c> added under the new key 3.</summary>
[MessagePackObject]
public sealed class Guild
{
    [Key(0)]
    public int Id { get; set; }

    [Key(1)]
    public string Name { get; set; } = "";

    [Key(3)]
    public int Rank { get; set; } = 1;
}

/// <summary>Version 2: key 2 (<c>Weight</c>) retired; <c>Rarity</c> added under the new key 3.</summary>
[MessagePackObject]
public sealed record Item(
    [property: Key(0)] int Id,
    [property: Key(1)] string Name,
    [property: Key(3)] int Rarity);

/// <summary>Version 2: a member added.</summary>
public enum Realm
{
    North = 1,
    South = 2,
    East = 3,
}

/// <summary>Version 2: <c>Age</c> removed, <c>Speed</c> added (members keyed by name).</summary>
[MessagePackObject(keyAsPropertyName: true)]
public sealed class Mount
{
    public int Id { get; set; }

    public string Name { get; set; } = "";

    public int Speed { get; set; } = 10;
}

/// <summary>Version 2: <c>Giver</c> removed, <c>Stage</c> added.</summary>
public sealed record Quest(int Id, string Title, int Stage);
