using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Tests;

/// <summary>Reads the blocks of shard files the way a stranger to the engine would: header by header.</summary>
internal static class ShardFiles
{
    /// <summary>A block as found in a shard file: its header and its whole bytes (header and payload).</summary>
    public sealed record Block(string File, long Offset, BlockHeader Header, byte[] Bytes);

    /// <summary>Every shard file of <paramref name="storage"/>, by name.</summary>
    public static IReadOnlyList<string> Names(IStorage storage) =>
        storage.List().Where(n => n.EndsWith(".shard", StringComparison.Ordinal)).Order(StringComparer.Ordinal).ToList();

    /// <summary>
    /// Where the blocks of a shard file start: after its header (format 2 and later, magic "SSH2" at offset 0), or at
    /// 0 for a format-1 shard.
    /// </summary>
    public static int FirstBlockOffset(ReadOnlySpan<byte> bytes) =>
        bytes.Length >= 4 && System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(bytes) == 0x32485353 ? 36 : 0;

    /// <summary>The salt in a shard file's header (bytes 16-31), or empty for a format-1 shard.</summary>
    public static byte[] Salt(ReadOnlySpan<byte> bytes) => FirstBlockOffset(bytes) == 0 ? [] : bytes.Slice(16, 16).ToArray();

    /// <summary>The whole blocks of <paramref name="bytes"/>, in file order, up to the first that is not whole and valid.</summary>
    public static List<Block> Blocks(string file, byte[] bytes)
    {
        var blocks = new List<Block>();
        var offset = FirstBlockOffset(bytes);
        while (offset < bytes.Length)
        {
            var header = BlockHeader.TryRead(bytes.AsSpan(offset), out _);
            if (header is not { } h || h.BlockLength > bytes.Length - offset || !BlockHeader.HasValidBlockCrc(bytes.AsSpan(offset, h.BlockLength)))
            {
                break;
            }

            blocks.Add(new Block(file, offset, h, bytes.AsSpan(offset, h.BlockLength).ToArray()));
            offset += h.BlockLength;
        }

        return blocks;
    }

    /// <summary>
    /// The whole blocks of every shard file of <paramref name="storage"/>; a file that a background compaction
    /// deletes between the listing and the read is skipped.
    /// </summary>
    public static List<Block> Blocks(IStorage storage) =>
        Names(storage).SelectMany(name => Blocks(name, ReadOrEmpty(storage, name))).ToList();

    private static byte[] ReadOrEmpty(IStorage storage, string name)
    {
        try
        {
            return storage.ReadAllBytes(name);
        }
        catch (FileNotFoundException)
        {
            return [];
        }
    }
}
