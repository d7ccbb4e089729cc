using System.Globalization;
using Stellar.Store.Storage;

namespace Stellar.Store.Format;

/// <summary>
/// The names of every file the store keeps in its directory, spelled once: the manifest, the lock, the shard files
/// and the compaction outputs not yet renamed. Names are made from numeric ids only, never from user text.
/// <code>
/// MANIFEST                                 the manifest (replaced atomically, see <see cref="Manifest"/>)
/// LOCK                                     the lock, owned by the storage (see <see cref="StorageNames.LockFileName"/>)
/// c{collection:x8}-{shard:x8}.shard        a shard
/// c{collection:x8}-{shard:x8}.shard.compacting   a compaction output until it is complete and flushed
/// 0   1-8         9   10-17      18-23
/// 'c' collection  '-' shard id   ".shard"
/// </code>
/// </summary>
internal static class StoreFileNames
{
    /// <summary>The manifest's file name.</summary>
    public const string Manifest = "MANIFEST";

    /// <summary>The lock file's name: the storage's reserved name, repeated nowhere else.</summary>
    public const string Lock = StorageNames.LockFileName;

    /// <summary>The extension of every shard file.</summary>
    public const string ShardExtension = ".shard";

    /// <summary>The suffix of a compaction output shard until it is complete and flushed.</summary>
    public const string CompactingSuffix = ".compacting";

    private const int HexDigits = 8;
    private const int CollectionAt = 1;
    private const int DashAt = CollectionAt + HexDigits;
    private const int ShardAt = DashAt + 1;
    private static readonly int ShardNameLength = ShardAt + HexDigits + ShardExtension.Length;

    /// <summary>The file name of shard <paramref name="shardId"/> of collection <paramref name="collectionId"/>.</summary>
    public static string Shard(uint collectionId, uint shardId) => $"c{collectionId:x8}-{shardId:x8}{ShardExtension}";

    /// <summary>The name a compaction writes an output shard under until it is complete and flushed.</summary>
    public static string Compacting(uint collectionId, uint shardId) => Shard(collectionId, shardId) + CompactingSuffix;

    /// <summary>Whether <paramref name="name"/> has the shard extension, well formed or not.</summary>
    public static bool HasShardExtension(string name) => name.EndsWith(ShardExtension, StringComparison.Ordinal);

    /// <summary>Whether <paramref name="name"/> is the name of a compaction output not yet renamed.</summary>
    public static bool IsCompacting(string name) => name.EndsWith(CompactingSuffix, StringComparison.Ordinal);

    /// <summary>
    /// Reads the ids out of a shard file's name, or out of a compaction output's (<see cref="IsCompacting"/> tells
    /// which); false for any other name.
    /// </summary>
    public static bool TryParseShard(string name, out uint collectionId, out uint shardId)
    {
        collectionId = shardId = 0;
        var span = name.AsSpan();
        if (span.EndsWith(CompactingSuffix, StringComparison.Ordinal))
        {
            span = span[..^CompactingSuffix.Length];
        }

        const NumberStyles Hex = NumberStyles.AllowHexSpecifier;
        return span.Length == ShardNameLength && span[0] == 'c' && span[DashAt] == '-' && span.EndsWith(ShardExtension, StringComparison.Ordinal)
            && uint.TryParse(span.Slice(CollectionAt, HexDigits), Hex, CultureInfo.InvariantCulture, out collectionId)
            && uint.TryParse(span.Slice(ShardAt, HexDigits), Hex, CultureInfo.InvariantCulture, out shardId);
    }
}
