using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>A world chunk (collection <c>chunks</c>): a column of voxels, created when first explored and dug into after.</summary>
/// <param name="Id">The chunk id (chunk x in the high 32 bits, chunk y in the low 32 bits).</param>
/// <param name="Version">How many times it was changed.</param>
/// <param name="Voxels">Block ids, 16 by 16 by 48 (12 KiB), mostly long runs of air and stone.</param>
[MessagePackObject]
public sealed record ChunkRecord(
    [property: Key(0)] long Id,
    [property: Key(1)] int Version,
    [property: Key(2)] byte[] Voxels);
