using MessagePack;

namespace Stellar.Store.Tests.Indexes;

/// <summary>An item with tags.</summary>
[MessagePackObject]
public sealed record Gear([property: Key(0)] int Id, [property: Key(1)] string[] Tags);
