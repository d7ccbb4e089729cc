using System.Security.Cryptography;

namespace Stellar.Store.Codecs;

/// <summary>
/// Turns the user's key or passphrase into the store's 32-byte master key, and checks it against the manifest's
/// <see cref="EncryptionInfo"/>. Thread safety: stateless; every member may be called from any thread.
/// </summary>
/// <remarks>
/// <para>Master key:</para>
/// <list type="bullet">
/// <item>raw key: <c>HKDF-SHA256(ikm: key, salt, info: "stellar-store/master/v1", 32 bytes)</c>;</item>
/// <item>passphrase: <c>PBKDF2-HMAC-SHA256(UTF-8 passphrase, salt, iterations, 32 bytes)</c>, with no Unicode
/// normalization, so the passphrase must be typed with the same code points each time.</item>
/// </list>
/// <para>The salt is 16 random bytes, new for every store. <see cref="EncryptionInfo.KeyCheck"/> is</para>
/// <code>
/// 00-11 [bytes]  random nonce
/// 12-43 [bytes]  AES-256-GCM ciphertext of a fixed 32-byte constant
/// 44-59 [bytes]  GCM tag
/// </code>
/// <para>
/// under <c>HKDF-SHA256(ikm: master key, salt: empty, info: "stellar-store/key-check/v1", 32 bytes)</c>. A key is
/// right when the tag verifies and the constant comes back. The check key is a one-way derivation of the master key
/// under its own label, so the check reveals nothing about the block subkeys and recovering the key from it means
/// breaking AES-GCM or, for a passphrase, running PBKDF2 once per guess.
/// </para>
/// </remarks>
internal static class KeyMaterial
{
    /// <summary>Length of a raw key and of the master key.</summary>
    public const int KeySize = AesGcmBlockCipher.KeySize;

    /// <summary>Length of <see cref="EncryptionInfo.Salt"/>.</summary>
    public const int SaltSize = 16;

    /// <summary>Length of <see cref="EncryptionInfo.KeyCheck"/>.</summary>
    public const int KeyCheckSize = KeyCheckTagOffset + AesGcmBlockCipher.TagSize;

    private const int CheckConstantSize = 32;
    private const int KeyCheckNonceOffset = 0;
    private const int KeyCheckCiphertextOffset = KeyCheckNonceOffset + AesGcmBlockCipher.NonceSize;
    private const int KeyCheckTagOffset = KeyCheckCiphertextOffset + CheckConstantSize;

    private static ReadOnlySpan<byte> MasterLabel => "stellar-store/master/v1"u8;

    private static ReadOnlySpan<byte> KeyCheckLabel => "stellar-store/key-check/v1"u8;

    private static ReadOnlySpan<byte> CheckConstant => "Stellar.Store encryption key ok!"u8;

    /// <summary>
    /// Makes the encryption info and master key of a new store from exactly one of <paramref name="key"/> (32 bytes)
    /// and <paramref name="passphrase"/>. The caller owns the returned master key and should zero it when done.
    /// </summary>
    /// <param name="key">A raw 32-byte key, or null when <paramref name="passphrase"/> is given.</param>
    /// <param name="passphrase">A non-empty passphrase, or null when <paramref name="key"/> is given.</param>
    /// <param name="pbkdf2Iterations">PBKDF2 iterations for a passphrase; ignored for a key.</param>
    /// <exception cref="ArgumentException">Both or neither are given, the key is not 32 bytes, the passphrase is
    /// empty, or the iteration count is not positive or above <see cref="StoreOptions.MaxPassphraseIterations"/>.</exception>
    public static (EncryptionInfo Info, byte[] MasterKey) Create(byte[]? key, string? passphrase, int pbkdf2Iterations)
    {
        if ((key is null) == (passphrase is null))
        {
            throw new ArgumentException("Give exactly one of a key and a passphrase.", key is null ? nameof(key) : nameof(passphrase));
        }

        var salt = RandomNumberGenerator.GetBytes(SaltSize);
        string kdf;
        int iterations;
        byte[] masterKey;
        if (key is not null)
        {
            RequireKeySize(key);

            // The user's key is not used as the master key directly: with a fresh salt per store, two stores given
            // the same key still get different master keys, so their block subkeys differ and the nonces that both
            // derive from (shard, sequence) never repeat under one key. It also makes their key checks differ.
            kdf = EncryptionInfo.RawKdf;
            iterations = 0;
            masterKey = DeriveFromKey(key, salt);
        }
        else
        {
            ArgumentException.ThrowIfNullOrEmpty(passphrase);
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(pbkdf2Iterations);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(pbkdf2Iterations, StoreOptions.MaxPassphraseIterations);
            kdf = EncryptionInfo.Pbkdf2Sha256Kdf;
            iterations = pbkdf2Iterations;
            masterKey = DeriveFromPassphrase(passphrase, salt, iterations);
        }

        var info = new EncryptionInfo { Kdf = kdf, Salt = salt, Iterations = iterations, KeyCheck = MakeKeyCheck(masterKey) };
        return (info, masterKey);
    }

    /// <summary>
    /// Re-derives the master key of an existing store from <paramref name="key"/> or <paramref name="passphrase"/>
    /// and verifies it against <paramref name="info"/>'s key check. The caller owns the returned master key.
    /// </summary>
    /// <exception cref="WrongKeyException">The key or passphrase is wrong, is of the other kind than the store was
    /// created with, or neither is given.</exception>
    /// <exception cref="ArgumentException">Both are given, the key is not 32 bytes, or the passphrase is empty.</exception>
    /// <exception cref="InvalidDataException"><paramref name="info"/> is malformed (unknown KDF, wrong lengths, an
    /// iteration count out of bounds): the manifest is damaged, not the key. Checked before any key derivation.</exception>
    public static byte[] Unlock(EncryptionInfo info, byte[]? key, string? passphrase)
    {
        ArgumentNullException.ThrowIfNull(info);
        if (key is not null && passphrase is not null)
        {
            throw new ArgumentException("Give the store's key or its passphrase, not both.", nameof(passphrase));
        }

        Validate(info);
        byte[] masterKey;
        if (info.Kdf == EncryptionInfo.RawKdf)
        {
            if (key is null)
            {
                throw new WrongKeyException(passphrase is null
                    ? "The store is encrypted with a key, and none was given."
                    : "The store is encrypted with a key, not a passphrase; give its key.");
            }

            RequireKeySize(key);
            masterKey = DeriveFromKey(key, info.Salt);
        }
        else
        {
            if (passphrase is null)
            {
                throw new WrongKeyException(key is null
                    ? "The store is encrypted with a passphrase, and none was given."
                    : "The store is encrypted with a passphrase, not a key; give its passphrase.");
            }

            ArgumentException.ThrowIfNullOrEmpty(passphrase);
            masterKey = DeriveFromPassphrase(passphrase, info.Salt, info.Iterations);
        }

        if (!MatchesKeyCheck(masterKey, info.KeyCheck))
        {
            CryptographicOperations.ZeroMemory(masterKey);
            throw new WrongKeyException(key is not null
                ? "The key does not match the store's key check: it is not the key the store was created with."
                : "The passphrase does not match the store's key check: it is not the passphrase the store was created with.");
        }

        return masterKey;
    }

    /// <summary>
    /// A pinned private copy of the caller's <paramref name="key"/> (null for null), so that the caller may clear
    /// theirs at any time; the owner zeroes it with <see cref="Zero"/> when done.
    /// </summary>
    public static byte[]? CopyKey(byte[]? key)
    {
        if (key is null)
        {
            return null;
        }

        var copy = GC.AllocateArray<byte>(key.Length, pinned: true);
        key.CopyTo(copy, 0);
        return copy;
    }

    /// <summary>Zeroes <paramref name="keyMaterial"/> when there is one.</summary>
    public static void Zero(byte[]? keyMaterial)
    {
        if (keyMaterial is not null)
        {
            CryptographicOperations.ZeroMemory(keyMaterial);
        }
    }

    private static void Validate(EncryptionInfo info)
    {
        if (info.Kdf is not (EncryptionInfo.RawKdf or EncryptionInfo.Pbkdf2Sha256Kdf))
        {
            throw new InvalidDataException($"Unknown key derivation '{info.Kdf}' in the store's encryption info.");
        }

        if (info.Salt is null || info.Salt.Length != SaltSize)
        {
            throw new InvalidDataException($"The store's encryption salt must be {SaltSize} bytes; got {info.Salt?.Length ?? 0}.");
        }

        // Checked before any derivation: the count comes from a file anyone with write access can edit, and an
        // unbounded one would make the open run PBKDF2 for hours. The lower bound stays at one, not at
        // StoreOptions.MinPassphraseIterations, so that stores created before that minimum still open; lowering the
        // count in the manifest gains an attacker nothing, since the key check then fails.
        if (info.Kdf == EncryptionInfo.Pbkdf2Sha256Kdf && info.Iterations is <= 0 or > StoreOptions.MaxPassphraseIterations)
        {
            throw new InvalidDataException(
                $"The store's PBKDF2 iteration count must be from 1 to {StoreOptions.MaxPassphraseIterations:N0}; got {info.Iterations:N0}.");
        }

        if (info.KeyCheck is null || info.KeyCheck.Length != KeyCheckSize)
        {
            throw new InvalidDataException($"The store's key check must be {KeyCheckSize} bytes; got {info.KeyCheck?.Length ?? 0}.");
        }
    }

    private static void RequireKeySize(byte[] key)
    {
        if (key.Length != KeySize)
        {
            throw new ArgumentException($"An encryption key must be {KeySize} bytes (AES-256); got {key.Length}.", nameof(key));
        }
    }

    private static byte[] DeriveFromKey(byte[] key, byte[] salt)
    {
        var masterKey = NewKeyBuffer();
        HKDF.DeriveKey(HashAlgorithmName.SHA256, key, masterKey, salt, MasterLabel);
        return masterKey;
    }

    private static byte[] DeriveFromPassphrase(string passphrase, byte[] salt, int iterations)
    {
        var masterKey = NewKeyBuffer();
        Rfc2898DeriveBytes.Pbkdf2(passphrase, salt, masterKey, iterations, HashAlgorithmName.SHA256);
        return masterKey;
    }

    // Pinned so the garbage collector never leaves copies of key material behind when it compacts.
    private static byte[] NewKeyBuffer() => GC.AllocateArray<byte>(KeySize, pinned: true);

    private static byte[] MakeKeyCheck(byte[] masterKey)
    {
        var keyCheck = new byte[KeyCheckSize];
        var nonce = keyCheck.AsSpan(KeyCheckNonceOffset, AesGcmBlockCipher.NonceSize);
        RandomNumberGenerator.Fill(nonce);
        Span<byte> checkKey = stackalloc byte[KeySize];
        try
        {
            HKDF.DeriveKey(HashAlgorithmName.SHA256, masterKey, checkKey, ReadOnlySpan<byte>.Empty, KeyCheckLabel);
            using var aes = new AesGcm(checkKey, AesGcmBlockCipher.TagSize);
            aes.Encrypt(nonce, CheckConstant, keyCheck.AsSpan(KeyCheckCiphertextOffset, CheckConstantSize),
                keyCheck.AsSpan(KeyCheckTagOffset, AesGcmBlockCipher.TagSize));
        }
        finally
        {
            CryptographicOperations.ZeroMemory(checkKey);
        }

        return keyCheck;
    }

    private static bool MatchesKeyCheck(byte[] masterKey, byte[] keyCheck)
    {
        Span<byte> checkKey = stackalloc byte[KeySize];
        Span<byte> constant = stackalloc byte[CheckConstantSize];
        try
        {
            HKDF.DeriveKey(HashAlgorithmName.SHA256, masterKey, checkKey, ReadOnlySpan<byte>.Empty, KeyCheckLabel);
            using var aes = new AesGcm(checkKey, AesGcmBlockCipher.TagSize);
            aes.Decrypt(keyCheck.AsSpan(KeyCheckNonceOffset, AesGcmBlockCipher.NonceSize),
                keyCheck.AsSpan(KeyCheckCiphertextOffset, CheckConstantSize),
                keyCheck.AsSpan(KeyCheckTagOffset, AesGcmBlockCipher.TagSize), constant);

            // Authentication already proves the key; comparing the constant as well costs nothing.
            return CryptographicOperations.FixedTimeEquals(constant, CheckConstant);
        }
        catch (CryptographicException)
        {
            // A wrong key surfaces as AuthenticationTagMismatchException; callers get WrongKeyException, never this.
            return false;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(checkKey);
            CryptographicOperations.ZeroMemory(constant);
        }
    }
}
