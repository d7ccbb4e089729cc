using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// The voxel world: <see cref="Chunks"/> by <see cref="Chunks"/> chunks, each a column of
/// <see cref="Size"/> x <see cref="Size"/> x <see cref="Height"/> block ids (12 KiB): stone with a few ores, dirt,
/// grass, then air. Long runs of one id make chunks compress well, as real voxel data does.
/// </summary>
internal static class WorldChunks
{
    public const int Size = 16;
    public const int Height = 48;
    public const int Chunks = 32;
    public const int WorldSize = Size * Chunks;

    private const byte Air = 0;
    private const byte Stone = 1;
    private const byte Dirt = 2;
    private const byte Grass = 3;
    private const byte Torch = 9;

    public static long IdOf(int x, int y) => ((long)(x / Size) << 32) | (uint)(y / Size);

    /// <summary>The chunk as the world generator makes it before anyone changed it (deterministic per id).</summary>
    public static ChunkRecord Generate(long id)
    {
        var voxels = new byte[Size * Size * Height];
        var random = new Random(unchecked((int)(((ulong)id * 0x9E3779B97F4A7C15UL) >> 32)));
        var baseHeight = 20 + random.Next(8);
        for (var x = 0; x < Size; x++)
        {
            for (var z = 0; z < Size; z++)
            {
                var surface = baseHeight + ((x + z) % 5 == 0 ? 1 : 0);
                for (var y = 0; y <= surface; y++)
                {
                    voxels[Index(x, y, z)] = y < surface - 3
                        ? (random.Next(40) == 0 ? (byte)(4 + random.Next(4)) : Stone)
                        : y < surface ? Dirt : Grass;
                }
            }
        }

        return new ChunkRecord(id, 0, voxels);
    }

    /// <summary>A copy of <paramref name="chunk"/> with a shaft dug somewhere and a torch at its bottom.</summary>
    public static ChunkRecord Dig(ChunkRecord chunk, Random random)
    {
        var voxels = chunk.Voxels.ToArray();
        int x = random.Next(Size), z = random.Next(Size), depth = 2 + random.Next(6);
        var y = Height - 1;
        while (y > 0 && voxels[Index(x, y, z)] == Air)
        {
            y--;
        }

        for (var dug = 0; dug < depth && y > 0; dug++, y--)
        {
            voxels[Index(x, y, z)] = Air;
        }

        voxels[Index(x, y, z)] = Torch;
        return chunk with { Version = chunk.Version + 1, Voxels = voxels };
    }

    private static int Index(int x, int y, int z) => ((y * Size) + z) * Size + x;
}
