using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>An item (collection <c>items</c>, keyed by id). It exists once, in the inventory of its owner.</summary>
/// <param name="Id">The item id.</param>
/// <param name="OwnerId">The character carrying it.</param>
/// <param name="Kind">What it is, for display.</param>
/// <param name="Tier">1 for loot; crafting two items makes one of a higher tier.</param>
[MessagePackObject]
public sealed record ItemRecord(
    [property: Key(0)] long Id,
    [property: Key(1)] long OwnerId,
    [property: Key(2)] string Kind,
    [property: Key(3)] int Tier);
