namespace Stellar.Store.Codecs;

/// <summary>
/// Names one block subkey: the shard's collection and id, and the random salt of its header (<see cref="Guid.Empty"/>
/// for a format-1 shard, which has none). Two copies of a store directory can hold shards of one id; their salts
/// tell them apart.
/// </summary>
internal readonly record struct SubkeyId(uint CollectionId, uint ShardId, Guid Salt)
{
    /// <summary>The id of a shard whose salt is <paramref name="salt"/> (16 bytes, or empty for a format-1 shard).</summary>
    /// <exception cref="ArgumentException">The salt is neither empty nor 16 bytes.</exception>
    public static SubkeyId Of(uint collectionId, uint shardId, ReadOnlySpan<byte> salt)
    {
        if (!salt.IsEmpty && salt.Length != AesGcmBlockCipher.SaltSize)
        {
            throw new ArgumentException($"A shard salt is {AesGcmBlockCipher.SaltSize} bytes; got {salt.Length}.", nameof(salt));
        }

        return new SubkeyId(collectionId, shardId, salt.IsEmpty ? Guid.Empty : new Guid(salt));
    }
}
