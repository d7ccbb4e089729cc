using System.Globalization;
using Stellar.Store.Storage;

namespace Stellar.Store.Format;

/// <summary>
/// The names of every file the store keeps in its directory, spelled once: the manifest, the lock, the shard files,
/// the compaction outputs not yet renamed and the index orders. Names are made from numbers only, never from user text
/// (an index's name is hashed).
/// <code>
/// MANIFEST                                 the manifest (replaced atomically, see <see cref="Manifest"/>)
/// LOCK                                     the lock, owned by the storage (see <see cref="StorageNames.LockFileName"/>)
/// c{collection:x8}-{shard:x8}.shard        a shard
/// c{collection:x8}-{shard:x8}.shard.compacting   a compaction output until it is complete and flushed
/// c{collection:x8}-{index:x8}.order        an index's order at the last clean close (see <see cref="Indexes.IndexOrderFiles"/>)
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

    /// <summary>The extension of an index's order file.</summary>
    public const string IndexOrderExtension = ".order";

    private const int HexDigits = 8;
    private const int CollectionAt = 1;
    private const int DashAt = CollectionAt + HexDigits;
    private const int ShardAt = DashAt + 1;
    private static readonly int ShardNameLength = ShardAt + HexDigits + ShardExtension.Length;

    /// <summary>The file name of shard <paramref name="shardId"/> of collection <paramref name="collectionId"/>.</summary>
    public static string Shard(uint collectionId, uint shardId) => $"c{collectionId:x8}-{shardId:x8}{ShardExtension}";

    /// <summary>The name a compaction writes an output shard under until it is complete and flushed.</summary>
    public static string Compacting(uint collectionId, uint shardId) => Shard(collectionId, shardId) + CompactingSuffix;

    /// <summary>
    /// The file name of the order of index <paramref name="indexName"/> of collection <paramref name="collectionId"/>: the
    /// index's name enters it as a 32-bit FNV-1a hash of its UTF-16 code units, and the file holds the name in full.
    /// </summary>
    public static string IndexOrder(uint collectionId, string indexName)
    {
        var hash = 2166136261u;
        foreach (var c in indexName)
        {
            hash = (hash ^ c) * 16777619u;
        }

        return $"c{collectionId:x8}-{hash:x8}{IndexOrderExtension}";
    }

    /// <summary>Whether <paramref name="name"/> has the extension of an index's order file.</summary>
    public static bool IsIndexOrder(string name) => name.EndsWith(IndexOrderExtension, StringComparison.Ordinal);

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
