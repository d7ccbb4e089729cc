using MessagePack;

namespace Stellar.Store.Hosting.Tests;

[MessagePackObject]
public sealed record Player(
    [property: Key(0)] int Id,
    [property: Key(1)] string Name,
    [property: Key(2)] int Level);
