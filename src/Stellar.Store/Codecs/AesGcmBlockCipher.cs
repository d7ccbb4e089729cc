using System.Buffers.Binary;
using System.Security.Cryptography;

namespace Stellar.Store.Codecs;

/// <summary>
/// AES-256-GCM block encryption with a 16-byte tag. Each shard has its own subkey, derived from the store's master
/// key with HKDF-SHA256 over its collection id, shard id and the random salt in its header; the 12-byte nonce is the
/// shard id and the block sequence.
/// </summary>
/// <remarks>
/// <para>Subkey: <c>HKDF-SHA256(ikm: master key, salt: empty, info, 32 bytes)</c>, where info is, for a shard with a
/// header (format 2 and later)</para>
/// <code>
/// 00-21 [ascii]  "stellar-store/block/v2"
/// 22-25 [uint]   collection id, little-endian
/// 26-29 [uint]   shard id, little-endian
/// 30-45 [bytes]  the shard's salt
/// </code>
/// <para>and for a format-1 shard (no header, no salt) the same without the salt, under "stellar-store/block/v1".
/// The salt is what keeps two copies of one store directory apart: both may go on to write shard N from sequence
/// S, but each under its own random salt, so never under the same key and nonce.</para>
/// <para>Nonce:</para>
/// <code>
/// 00-03 [uint]   shard id, little-endian
/// 04-11 [ulong]  block sequence, little-endian
/// </code>
/// <para>
/// The shard id sits in the nonce although the subkey already binds it, so that nonces stay unique under a key
/// even if a later format ever shared one subkey between shards. The engine must never encrypt one
/// (collection, shard, salt, sequence) tuple twice (see <see cref="IBlockCipher"/>).
/// </para>
/// <para>
/// Thread safety: <see cref="Encrypt"/> and <see cref="TryDecrypt"/> may run on any number of threads at once.
/// <see cref="AesGcm"/> instances are not documented as thread-safe, so each call rents one from a small pool
/// per subkey instead of sharing one behind a lock. <see cref="Dispose"/> must not race with them: the engine
/// disposes the cipher after its pipelines have drained.
/// </para>
/// <para>
/// Subkeys live in a <see cref="SubkeyCache"/> of bounded size; an evicted one is zeroed with its pooled instances
/// released, and derived again when its shard is read later.
/// </para>
/// </remarks>
internal sealed class AesGcmBlockCipher : IBlockCipher, IDisposable
{
    /// <summary>Length of the master key and of every subkey: AES-256.</summary>
    public const int KeySize = 32;

    /// <summary>Length of the GCM nonce.</summary>
    public const int NonceSize = 12;

    /// <summary>Length of the GCM authentication tag, the whole of <see cref="Overhead"/>.</summary>
    public const int TagSize = 16;

    /// <summary>Length of a shard salt (format 2 and later; format-1 shards have none).</summary>
    public const int SaltSize = 16;

    private const int NonceShardIdOffset = 0;
    private const int NonceSequenceOffset = 4;

    private readonly byte[] _masterKey;
    private readonly SubkeyCache _subkeys;

    // No more calls than cores run at once, so idle instances beyond that would only hold native contexts.
    private readonly int _poolCapacity = Math.Max(2, Environment.ProcessorCount);
    private int _disposed;

    /// <summary>
    /// Creates the cipher for a store's 32-byte master key, holding at most <paramref name="subkeyCacheCapacity"/>
    /// subkeys; the key is copied, so the caller may zero its own.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="masterKey"/> is not 32 bytes.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="subkeyCacheCapacity"/> is not positive.</exception>
    public AesGcmBlockCipher(byte[] masterKey, int subkeyCacheCapacity = SubkeyCache.DefaultCapacity)
    {
        ArgumentNullException.ThrowIfNull(masterKey);
        if (masterKey.Length != KeySize)
        {
            throw new ArgumentException(
                $"The master key must be {KeySize} bytes (AES-256); got {masterKey.Length}.", nameof(masterKey));
        }

        // Pinned so the garbage collector never leaves copies of key material behind when it compacts.
        _masterKey = GC.AllocateArray<byte>(KeySize, pinned: true);
        masterKey.CopyTo(_masterKey, 0);
        _subkeys = new SubkeyCache(subkeyCacheCapacity, id => new ShardKey(id, DeriveSubkey(id), _poolCapacity));
    }

    /// <inheritdoc />
    public int Overhead => TagSize;

    /// <summary>The master key itself, so that tests can see it zeroed.</summary>
    internal byte[] MasterKey => _masterKey;

    /// <summary>The subkey cache, so that tests can watch its bound and its keys.</summary>
    internal SubkeyCache Subkeys => _subkeys;

    private static ReadOnlySpan<byte> LegacySubkeyLabel => "stellar-store/block/v1"u8;

    private static ReadOnlySpan<byte> SubkeyLabel => "stellar-store/block/v2"u8;

    /// <inheritdoc />
    /// <exception cref="ArgumentException"><paramref name="destination"/> is not <c>plaintext.Length + Overhead</c> bytes.</exception>
    /// <exception cref="ObjectDisposedException">The cipher was disposed.</exception>
    public void Encrypt(uint collectionId, uint shardId, ReadOnlySpan<byte> shardSalt, ulong blockSequence, ReadOnlySpan<byte> plaintext,
        Span<byte> destination, ReadOnlySpan<byte> associatedData)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (destination.Length != plaintext.Length + TagSize)
        {
            throw new ArgumentException(
                $"The destination must be {plaintext.Length + TagSize} bytes (plaintext + tag); got {destination.Length}.",
                nameof(destination));
        }

        Span<byte> nonce = stackalloc byte[NonceSize];
        WriteNonce(nonce, shardId, blockSequence);
        var shardKey = _subkeys.Acquire(SubkeyId.Of(collectionId, shardId, shardSalt));
        try
        {
            var aes = shardKey.Rent();
            try
            {
                aes.Encrypt(nonce, plaintext, destination[..plaintext.Length], destination[plaintext.Length..], associatedData);
            }
            finally
            {
                shardKey.Return(aes);
            }
        }
        finally
        {
            _subkeys.Release(shardKey);
        }
    }

    /// <inheritdoc />
    /// <exception cref="ArgumentException"><paramref name="plaintext"/> is not <c>source.Length - Overhead</c> bytes.</exception>
    /// <exception cref="ObjectDisposedException">The cipher was disposed.</exception>
    public bool TryDecrypt(uint collectionId, uint shardId, ReadOnlySpan<byte> shardSalt, ulong blockSequence, ReadOnlySpan<byte> source,
        Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (source.Length < TagSize)
        {
            // Too short to hold a tag: what was stored is not a block this cipher wrote.
            return false;
        }

        var length = source.Length - TagSize;
        if (plaintext.Length != length)
        {
            throw new ArgumentException(
                $"The plaintext buffer must be {length} bytes (source - tag); got {plaintext.Length}.", nameof(plaintext));
        }

        Span<byte> nonce = stackalloc byte[NonceSize];
        WriteNonce(nonce, shardId, blockSequence);
        var shardKey = _subkeys.Acquire(SubkeyId.Of(collectionId, shardId, shardSalt));
        try
        {
            var aes = shardKey.Rent();
            try
            {
                aes.Decrypt(nonce, source[..length], source[length..], plaintext, associatedData);
                return true;
            }
            catch (AuthenticationTagMismatchException)
            {
                // AesGcm already clears the output on failure; clearing again keeps the contract independent of that.
                plaintext.Clear();
                return false;
            }
            finally
            {
                shardKey.Return(aes);
            }
        }
        finally
        {
            _subkeys.Release(shardKey);
        }
    }

    /// <summary>Zeroes the master key and every subkey, and releases every pooled <see cref="AesGcm"/>.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _subkeys.Dispose();
        CryptographicOperations.ZeroMemory(_masterKey);
    }

    private static void WriteNonce(Span<byte> nonce, uint shardId, ulong blockSequence)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(nonce[NonceShardIdOffset..], shardId);
        BinaryPrimitives.WriteUInt64LittleEndian(nonce[NonceSequenceOffset..], blockSequence);
    }

    private byte[] DeriveSubkey(SubkeyId id)
    {
        var label = id.Salt == Guid.Empty ? LegacySubkeyLabel : SubkeyLabel;
        var saltLength = id.Salt == Guid.Empty ? 0 : SaltSize;
        Span<byte> info = stackalloc byte[label.Length + sizeof(uint) + sizeof(uint) + saltLength];
        label.CopyTo(info);
        BinaryPrimitives.WriteUInt32LittleEndian(info[label.Length..], id.CollectionId);
        BinaryPrimitives.WriteUInt32LittleEndian(info[(label.Length + sizeof(uint))..], id.ShardId);
        if (saltLength > 0)
        {
            id.Salt.TryWriteBytes(info[(label.Length + sizeof(uint) + sizeof(uint))..]);
        }

        var subkey = GC.AllocateArray<byte>(KeySize, pinned: true);
        HKDF.DeriveKey(HashAlgorithmName.SHA256, _masterKey, subkey, ReadOnlySpan<byte>.Empty, info);
        return subkey;
    }
}
