using MessagePack;

namespace Stellar.Store.Tests.Reliability;

/// <summary>The soak's second value type: string keys, and payloads from empty to large enough to roll a shard.</summary>
[MessagePackObject]
public sealed record SoakItem(
    [property: Key(0)] string Id,
    [property: Key(1)] long Version,
    [property: Key(2)] string Payload);
