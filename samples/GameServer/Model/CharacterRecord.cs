using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>
/// A player character as stored (collection <c>characters</c>, keyed by id): its gold and the ids of the items it
/// carries. Written only in units with the ledger entries (and items) of the change, never alone.
/// </summary>
/// <param name="Id">The character id.</param>
/// <param name="Name">The account name that plays it.</param>
/// <param name="Gold">Gold carried; always equals the sum of the character's ledger entries.</param>
/// <param name="Inventory">Ids of the items carried; each item's <see cref="ItemRecord.OwnerId"/> is this character.</param>
[MessagePackObject]
public sealed record CharacterRecord(
    [property: Key(0)] long Id,
    [property: Key(1)] string Name,
    [property: Key(2)] long Gold,
    [property: Key(3)] IReadOnlyList<long> Inventory);
