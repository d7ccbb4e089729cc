namespace Stellar.Store.Codecs;

/// <summary>
/// Authenticated encryption of block payloads. Each shard of each collection has its own subkey, bound to the
/// shard's random salt, and the nonce is derived from the shard id and the block sequence, so a (collection, shard,
/// salt, sequence) tuple must never be encrypted twice: the engine guarantees that by never appending to a shard a
/// previous session wrote, and the salt keeps copies of a store directory from sharing a subkey.
/// Thread safety: every member may be called from any thread concurrently.
/// </summary>
internal interface IBlockCipher
{
    /// <summary>Bytes the ciphertext adds to the plaintext (the authentication tag).</summary>
    int Overhead { get; }

    /// <summary>
    /// Encrypts <paramref name="plaintext"/> under the subkey of (<paramref name="collectionId"/>,
    /// <paramref name="shardId"/>, <paramref name="shardSalt"/>; an empty salt for a format-1 shard) into <paramref name="destination"/> (ciphertext followed by the tag,
    /// <c>plaintext.Length + Overhead</c> bytes), binding <paramref name="associatedData"/> (the block header).
    /// </summary>
    void Encrypt(uint collectionId, uint shardId, ReadOnlySpan<byte> shardSalt, ulong blockSequence, ReadOnlySpan<byte> plaintext,
        Span<byte> destination, ReadOnlySpan<byte> associatedData);

    /// <summary>
    /// Authenticates and decrypts <paramref name="source"/> (ciphertext followed by the tag) into
    /// <paramref name="plaintext"/> (<c>source.Length - Overhead</c> bytes). Returns false, writing nothing usable,
    /// when authentication fails: a wrong key, or any changed byte of the ciphertext, tag or associated data.
    /// </summary>
    bool TryDecrypt(uint collectionId, uint shardId, ReadOnlySpan<byte> shardSalt, ulong blockSequence, ReadOnlySpan<byte> source,
        Span<byte> plaintext, ReadOnlySpan<byte> associatedData);
}
