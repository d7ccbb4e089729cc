using Stellar.Store.Actors;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store.Units;

/// <summary>
/// Tells, at open, whether a block a unit log decision names is on disk: read from the blocks the store's chains
/// verified, before any collection loads; and which parts of rounds the shard files the open ignores hold.
/// </summary>
/// <remarks>Thread safety: used once, at open, on one thread.</remarks>
internal sealed class PartProbe
{
    private readonly Dictionary<uint, ShardChain> _chains;
    private readonly BlockCodec _codec;
    private readonly IStorage _storage;

    public PartProbe(IEnumerable<ShardChain> chains, BlockCodec codec, IStorage storage)
    {
        _chains = chains.ToDictionary(c => c.CollectionId);
        _codec = codec;
        _storage = storage;
    }

    /// <summary>
    /// The parts of rounds, by their tags, in the shard files the open keeps without loading, each with its file's path:
    /// those of a known collection that its manifest does not list and never handed out (see
    /// <see cref="ShardChain.IgnoresAtOpen"/>), and those of a collection the manifest does not have (made after it).
    /// </summary>
    public IEnumerable<(string Path, UnitTag Tag)> IgnoredParts()
    {
        foreach (var name in _storage.List().Order(StringComparer.Ordinal))
        {
            if (!StoreFileNames.TryParseShard(name, out var collectionId, out var shardId) || StoreFileNames.IsCompacting(name)
                || (_chains.TryGetValue(collectionId, out var chain) && (chain.Lists(shardId) || !chain.IgnoresAtOpen(shardId))))
            {
                continue;
            }

            foreach (var payload in IgnoredShardReader.Read(_storage, name, collectionId, shardId, BlockFlags.UnitPart, _codec))
            {
                if (UnitTag.Read(payload) is { } tag)
                {
                    yield return (Path.Combine(_storage.Location, name), tag);
                }
            }
        }
    }

    /// <summary>
    /// Whether <paramref name="block"/> is on disk as a part of the round <paramref name="tag"/> names: a verified
    /// block at that place whose tag is the round's (a block written there after an open cut a torn tail has another
    /// session's tag, or none). A shard its collection no longer lists, but whose id the manifest handed out, was
    /// replaced by a compaction, which runs only on rounds that ended, so on parts that were durable: their live
    /// records were copied into the shards that replaced it. A shard whose id the manifest never handed out (or records
    /// as kept, see <see cref="ManifestCollection.KeptShards"/>) is newer than the manifest (rolled back, or copied
    /// while the store ran): the open ignores it, so the part is not in what loads, and the round must count nowhere.
    /// Throws <see cref="CorruptBlockException"/> when the block is there but does not decode.
    /// </summary>
    public bool Holds(PartBlock block, UnitTag tag)
    {
        if (!_chains.TryGetValue(block.Collection, out var chain))
        {
            // A decision about a collection the manifest does not have: its part is nowhere.
            return false;
        }

        if (!chain.Lists(block.Shard))
        {
            return !chain.IgnoresAtOpen(block.Shard);
        }

        foreach (var scanned in chain.Blocks)
        {
            if (scanned.ShardId != block.Shard || scanned.Offset != block.Offset)
            {
                continue;
            }

            if ((scanned.Header.Flags & BlockFlags.UnitPart) == 0)
            {
                return false;
            }

            var raw = _codec.Decode(chain.ReadBlock(scanned), scanned.Header, chain.SaltOf(scanned.ShardId), chain.PathOf(scanned.ShardId), scanned.Offset);
            return UnitTag.Read(raw) == tag;
        }

        return false;
    }
}
