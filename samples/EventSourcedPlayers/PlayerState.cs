namespace Stellar.Store.Samples.EventSourcedPlayers;

/// <summary>
/// A player's state: nothing but the fold of its events, so replaying them (from the latest snapshot on) rebuilds it.
/// Immutable: a snapshot saves the instance the actor holds, and the next event makes a new one. The items are a plain
/// array behind the read-only interface, a type Akka's default (JSON) serializer can rebuild from a snapshot.
/// </summary>
public sealed record PlayerState(int Gold, int Earned, int Spent, IReadOnlyList<string> Items)
{
    /// <summary>A new player.</summary>
    public static PlayerState Empty { get; } = new(0, 0, 0, Array.Empty<string>());

    /// <summary>The state after <paramref name="event"/>.</summary>
    public PlayerState Apply(object @event) => @event switch
    {
        GoldEarned e => this with { Gold = Gold + e.Amount, Earned = Earned + e.Amount },
        GoldSpent e => this with { Gold = Gold - e.Amount, Spent = Spent + e.Amount, Items = Items.Append(e.Item).ToArray() },
        _ => throw new ArgumentException($"Not an event of a player: {@event.GetType().Name}.", nameof(@event)),
    };

    /// <summary>Equal when every field is, the items compared in order (a record compares lists by reference).</summary>
    public bool SameAs(PlayerState other) =>
        other is not null && Gold == other.Gold && Earned == other.Earned && Spent == other.Spent && Items.SequenceEqual(other.Items);
}
