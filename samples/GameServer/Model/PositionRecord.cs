using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>
/// Where a character stands (collection <c>positions</c>, keyed by character id). Kept apart from
/// <see cref="CharacterRecord"/> because it changes all the time and belongs to no unit: its writes are plain upserts,
/// which the store does not order with units, so they must not touch a collection that units write.
/// </summary>
/// <param name="CharacterId">Whose position.</param>
/// <param name="X">World position, x.</param>
/// <param name="Y">World position, y.</param>
[MessagePackObject]
public sealed record PositionRecord(
    [property: Key(0)] long CharacterId,
    [property: Key(1)] int X,
    [property: Key(2)] int Y);
