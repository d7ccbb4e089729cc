using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>A player character as stored: gold, position and the ids of the items it carries.</summary>
/// <param name="Id">The character id.</param>
/// <param name="Name">The account name that plays it.</param>
/// <param name="Gold">Gold carried; always equals the sum of the character's ledger entries.</param>
/// <param name="X">World position, x.</param>
/// <param name="Y">World position, y.</param>
/// <param name="Inventory">Ids of the items carried; each item's <see cref="ItemRecord.OwnerId"/> is this character.</param>
[MessagePackObject]
public sealed record CharacterRecord(
    [property: Key(0)] long Id,
    [property: Key(1)] string Name,
    [property: Key(2)] long Gold,
    [property: Key(3)] int X,
    [property: Key(4)] int Y,
    [property: Key(5)] IReadOnlyList<long> Inventory) : EconomyRecord
{
    /// <inheritdoc/>
    [IgnoreMember]
    public override EconomyKey Key => new(EconomyKind.Character, Id);
}
