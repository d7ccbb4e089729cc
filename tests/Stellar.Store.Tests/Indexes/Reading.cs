using MessagePack;

namespace Stellar.Store.Tests.Indexes;

/// <summary>A record with a field of each kind of index key a build sorts differently.</summary>
[MessagePackObject]
public sealed record Reading(
    [property: Key(0)] int Id,
    [property: Key(1)] int Score,
    [property: Key(2)] long Big,
    [property: Key(3)] double Value,
    [property: Key(4)] DateTime At,
    [property: Key(5)] ushort Small,
    [property: Key(6)] string Name);
