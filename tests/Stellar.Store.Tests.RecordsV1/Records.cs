using MessagePack;

namespace Stellar.Store.Tests.Codecs.Evolution;

/// <summary>Version 1 of a plain class (contractless: members by name).</summary>
public sealed class Hero
{
    public string Id { get; set; } = "";

    public int Level { get; set; }

    /// <summary>Removed in version 2.</summary>
    public string Title { get; set; } = "";
}

/// <summary>Version 1 of an attributed class (members by integer key).</summary>
[MessagePackObject]
public sealed class Guild
{
    [Key(0)]
    public int Id { get; set; }

    [Key(1)]
    public string Name { get; set; } = "";

    /// <summary>Removed in version 2; its key 2 is never used again.</summary>
    [Key(2)]
    public string Motto { get; set; } = "";
}

/// <summary>Version 1 of an attributed positional record (constructor parameters by key).</summary>
[MessagePackObject]
public sealed record Item(
    [property: Key(0)] int Id,
    [property: Key(1)] string Name,
    [property: Key(2)] int Weight);

/// <summary>Version 1 of an enum used inside a generic key type.</summary>
public enum Realm
{
    North = 1,
    South = 2,
}

/// <summary>Version 1 of an attributed class keyed by member names (map format).</summary>
[MessagePackObject(keyAsPropertyName: true)]
public sealed class Mount
{
    public int Id { get; set; }

    public string Name { get; set; } = "";

    /// <summary>Removed in version 2.</summary>
    public int Age { get; set; }
}

/// <summary>Version 1 of a plain positional record (contractless: constructor parameters by name).</summary>
public sealed record Quest(int Id, string Title, string Giver);
