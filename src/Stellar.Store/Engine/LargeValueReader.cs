using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>Reads values that stay on disk (large values) from their blocks, for readers and for compaction.</summary>
/// <remarks>Thread safety: any thread; it holds no state of its own.</remarks>
internal sealed class LargeValueReader<TValue>
{
    private readonly ShardChain _chain;
    private readonly BlockCodec _codec;
    private readonly RecordSerializer _serializer;

    public LargeValueReader(ShardChain chain, BlockCodec codec, RecordSerializer serializer)
    {
        _chain = chain;
        _codec = codec;
        _serializer = serializer;
    }

    /// <summary>
    /// The value of <paramref name="node"/>: from memory, or for a large value read from its block on disk (checksum
    /// and tag verified), retrying at the new place when a compaction moved it during the read. Throws
    /// <see cref="RetiredShardException"/> when the node was not moved because it was already replaced at the
    /// compaction's pin: only an unpinned reader can hold such a node, and it reads the newest version instead.
    /// </summary>
    public TValue ReadValue(VersionNode<TValue> node)
    {
        while (true)
        {
            var location = node.Location;
            if (location is null)
            {
                return node.Value!;
            }

            try
            {
                var path = _chain.PathOf(location.ShardId);
                try
                {
                    return _serializer.Deserialize<TValue>(ReadRawValue(location));
                }
                catch (MessagePackSerializationException e)
                {
                    throw new CorruptBlockException(path, location.BlockOffset, $"a large value does not decode as {typeof(TValue).Name}", e);
                }
            }
            catch (Exception e) when (e is ObjectDisposedException or IOException && !ReferenceEquals(location, node.Location))
            {
                // A compaction moved the value and retired its old shard meanwhile: read it where it is now.
            }
        }
    }

    /// <summary>The serialized bytes of a large value, read from its block on disk.</summary>
    public ReadOnlyMemory<byte> ReadRawValue(ValueLocation location)
    {
        var (block, header) = _chain.ReadBlockAt(location);
        var raw = _codec.Decode(block, header, _chain.SaltOf(location.ShardId), _chain.PathOf(location.ShardId), location.BlockOffset);
        if (location.ValueOffset < 0 || location.ValueOffset + (long)location.ValueLength > raw.Length)
        {
            throw new CorruptBlockException(_chain.PathOf(location.ShardId), location.BlockOffset, "a large value lies outside its block");
        }

        return raw.AsMemory(location.ValueOffset, location.ValueLength);
    }
}
