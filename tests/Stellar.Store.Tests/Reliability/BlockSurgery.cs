using System.Buffers.Binary;
using Stellar.Store.Format;

namespace Stellar.Store.Tests.Reliability;

/// <summary>Finds the blocks of a shard file and reseals edited ones, for damage that checksums alone would catch.</summary>
internal static class BlockSurgery
{
    /// <summary>The offset and length of every block of a valid shard, in order.</summary>
    public static IReadOnlyList<(int Offset, int Length)> Blocks(byte[] shard)
    {
        var blocks = new List<(int, int)>();
        var offset = ShardFiles.FirstBlockOffset(shard);
        while (offset < shard.Length)
        {
            var header = BlockHeader.TryRead(shard.AsSpan(offset), out var problem)
                ?? throw new InvalidOperationException($"not a valid shard at {offset}: {problem}");
            blocks.Add((offset, header.BlockLength));
            offset += header.BlockLength;
        }

        return blocks;
    }

    /// <summary>Recomputes the header CRC and the block CRC of a whole block, so that only deeper checks can see an edit.</summary>
    public static void Reseal(Span<byte> block)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(block[36..], Crc32C.Compute(block[..36]));
        BlockHeader.WriteBlockCrc(block);
    }
}
