using MessagePack;

namespace Stellar.Store.Tests.Api;

[MessagePackObject]
public sealed record Account(
    [property: Key(0)] int Id,
    [property: Key(1)] long Gold);
