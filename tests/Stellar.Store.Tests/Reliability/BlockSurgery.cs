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

    /// <summary>
    /// Recomputes the header check (the header CRC of a fixed header, the 16-bit check of a compact one) and the
    /// block CRC of a whole block, so that only deeper checks can see an edit.
    /// </summary>
    public static void Reseal(Span<byte> block)
    {
        var checksums = Checksums(block);
        if (IsCompact(block))
        {
            BinaryPrimitives.WriteUInt16LittleEndian(block[checksums.Start..], (ushort)Crc32C.Compute(block[..checksums.Start.Value]));
        }
        else
        {
            BinaryPrimitives.WriteUInt32LittleEndian(block[36..], Crc32C.Compute(block[..36]));
        }

        BlockHeader.WriteBlockCrc(block);
    }

    /// <summary>
    /// Where a block's own checksums lie: bytes 36-43 of a fixed header, the last six bytes (header check and block
    /// CRC) of a compact one, whose varints end at their first byte under 0x80.
    /// </summary>
    public static Range Checksums(ReadOnlySpan<byte> block)
    {
        if (!IsCompact(block))
        {
            return 36..44;
        }

        var position = 5;
        for (var field = 0; field < 6; field++)
        {
            while (block[position] >= 0x80)
            {
                position++;
            }

            position++;
        }

        return position..(position + 6);
    }

    /// <summary>The block with its header replaced by <paramref name="edited"/> (resealed) and its payload kept.</summary>
    public static byte[] WithHeader(ReadOnlySpan<byte> block, BlockHeader edited)
    {
        var original = BlockHeader.TryRead(block, out var problem) ?? throw new InvalidOperationException(problem);
        var payload = block.Slice(original.HeaderLength, original.PayloadLength);
        var rebuilt = new byte[edited.HeaderLength + payload.Length];
        edited.WriteTo(rebuilt);
        payload.CopyTo(rebuilt.AsSpan(edited.HeaderLength));
        Reseal(rebuilt);
        return rebuilt;
    }

    private static bool IsCompact(ReadOnlySpan<byte> block) => BinaryPrimitives.ReadUInt32LittleEndian(block) == CompactBlockHeader.Magic;
}
