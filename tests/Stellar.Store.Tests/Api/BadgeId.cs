using MessagePack;

namespace Stellar.Store.Tests.Api;

/// <summary>A key type that refuses a negative value in its constructor, as a game's own identifier types may.</summary>
[MessagePackObject]
public readonly record struct BadgeId : IComparable<BadgeId>
{
    [SerializationConstructor]
    public BadgeId(int value)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(value);
        Value = value;
    }

    [Key(0)]
    public int Value { get; }

    public static bool operator <(BadgeId left, BadgeId right) => left.CompareTo(right) < 0;

    public static bool operator <=(BadgeId left, BadgeId right) => left.CompareTo(right) <= 0;

    public static bool operator >(BadgeId left, BadgeId right) => left.CompareTo(right) > 0;

    public static bool operator >=(BadgeId left, BadgeId right) => left.CompareTo(right) >= 0;

    public int CompareTo(BadgeId other) => Value.CompareTo(other.Value);
}

[MessagePackObject]
public sealed record Badge([property: Key(0)] BadgeId Id, [property: Key(1)] string Name);
