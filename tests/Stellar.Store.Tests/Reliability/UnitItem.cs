using MessagePack;

namespace Stellar.Store.Tests.Reliability;

/// <summary>A record of the cross-collection tests: an amount and a note, which may be over the large-value threshold.</summary>
[MessagePackObject]
public sealed record UnitItem(
    [property: Key(0)] int Id,
    [property: Key(1)] long Gold,
    [property: Key(2)] string Note);
