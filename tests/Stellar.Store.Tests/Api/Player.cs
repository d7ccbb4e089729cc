using MessagePack;

namespace Stellar.Store.Tests.Api;

[MessagePackObject]
public sealed record Player(
    [property: Key(0)] int Id,
    [property: Key(1)] string Name,
    [property: Key(2)] int Level,
    [property: Key(3)] long Gold);

/// <summary>A plain class: serialized by the contractless resolver.</summary>
public sealed class Chunk
{
    public string Id { get; set; } = "";

    public byte[] Voxels { get; set; } = Array.Empty<byte>();
}
