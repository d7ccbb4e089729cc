using System.Buffers.Binary;
using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

/// <summary>
/// Reads, at open, the blocks of a shard file the open keeps without loading (one the manifest does not list and never
/// handed out, or of a collection it does not have): such a file is evidence of what a newer manifest held, never data
/// to load. It is read as far as its blocks verify and decode; a file that is damaged, or not the shard its name says,
/// yields what came before.
/// </summary>
/// <remarks>Thread safety: stateless; used at open, on one thread.</remarks>
internal static class IgnoredShardReader
{
    /// <summary>
    /// The decoded payloads of the blocks carrying one of <paramref name="flags"/> in shard <paramref name="shardId"/> of
    /// collection <paramref name="collectionId"/>, the file <paramref name="name"/> of <paramref name="storage"/>.
    /// </summary>
    public static List<byte[]> Read(IStorage storage, string name, uint collectionId, uint shardId, BlockFlags flags, BlockCodec codec)
    {
        var found = new List<byte[]>();
        var path = Path.Combine(storage.Location, name);
        using var file = storage.OpenRead(name);
        var head = new byte[ShardHeader.Size];
        var read = file.ReadAt(0, head);
        byte[] salt = [];
        long start = 0;
        if (read >= sizeof(uint) && BinaryPrimitives.ReadUInt32LittleEndian(head) == ShardHeader.Magic)
        {
            if (ShardHeader.TryRead(head.AsSpan(0, read), out _) is not { } header || header.CollectionId != collectionId || header.ShardId != shardId)
            {
                return found;
            }

            salt = header.Salt;
            start = ShardHeader.Size;
        }

        var blocks = new List<ScannedBlock>();
        ulong lastSequence = 0;
        try
        {
            new ShardScanner(collectionId).Scan(file, path, shardId, isActive: true, start, firstSequence: null, consecutive: false, ref lastSequence, blocks);
        }
        catch (CorruptBlockException)
        {
            // The blocks before the damage were added as they verified.
        }

        foreach (var block in blocks)
        {
            if ((block.Header.Flags & flags) == 0)
            {
                continue;
            }

            var bytes = new byte[block.Header.BlockLength];
            if (file.ReadAt(block.Offset, bytes) != bytes.Length)
            {
                break;
            }

            try
            {
                found.Add(codec.Decode(bytes, block.Header, salt, path, block.Offset));
            }
            catch (CorruptBlockException)
            {
                break;
            }
        }

        return found;
    }
}
