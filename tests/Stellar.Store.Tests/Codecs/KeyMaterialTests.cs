using System.Text.Json;
using Stellar.Store.Codecs;

namespace Stellar.Store.Tests.Codecs;

public sealed class KeyMaterialTests
{
    // The engine's default is 600,000; a small count keeps the suite fast and exercises the same code.
    private const int Iterations = 1_000;
    private const string Passphrase = "correct horse battery staple";

    private static readonly byte[] Key = CodecPayloads.RandomBytes(32, seed: 32);

    [Fact]
    public void CreateThenUnlock_WithKey_ReturnsTheSameMasterKey()
    {
        var (info, masterKey) = KeyMaterial.Create(Key, null, Iterations);

        var unlocked = KeyMaterial.Unlock(info, (byte[])Key.Clone(), null);

        Assert.Equal(masterKey, unlocked);
        Assert.Equal(EncryptionInfo.RawKdf, info.Kdf);
        Assert.Equal(0, info.Iterations);
        Assert.Equal(16, info.Salt.Length);
        Assert.Equal(KeyMaterial.KeyCheckSize, info.KeyCheck.Length);
    }

    [Fact]
    public void CreateThenUnlock_WithPassphrase_ReturnsTheSameMasterKey()
    {
        var (info, masterKey) = KeyMaterial.Create(null, Passphrase, Iterations);

        var unlocked = KeyMaterial.Unlock(info, null, Passphrase);

        Assert.Equal(masterKey, unlocked);
        Assert.Equal(EncryptionInfo.Pbkdf2Sha256Kdf, info.Kdf);
        Assert.Equal(Iterations, info.Iterations);
        Assert.Equal(16, info.Salt.Length);
        Assert.Equal(KeyMaterial.KeyCheckSize, info.KeyCheck.Length);
    }

    [Fact]
    public void KeyCheckSize_Is60_NonceCiphertextAndTag()
    {
        Assert.Equal(12 + 32 + 16, KeyMaterial.KeyCheckSize);
    }

    [Fact]
    public void Create_WithKey_DoesNotUseTheKeyAsMasterKey()
    {
        var (_, masterKey) = KeyMaterial.Create(Key, null, Iterations);

        Assert.Equal(32, masterKey.Length);
        Assert.NotEqual(Key, masterKey);
    }

    [Fact]
    public void Create_SameKeyTwice_GivesDifferentSaltsKeyChecksAndMasterKeys()
    {
        var (first, firstMaster) = KeyMaterial.Create(Key, null, Iterations);
        var (second, secondMaster) = KeyMaterial.Create(Key, null, Iterations);

        Assert.NotEqual(first.Salt, second.Salt);
        Assert.NotEqual(first.KeyCheck, second.KeyCheck);
        Assert.NotEqual(firstMaster, secondMaster);
        Assert.NotEqual(first, second);
    }

    [Fact]
    public void Create_SamePassphraseTwice_GivesDifferentSaltsKeyChecksAndMasterKeys()
    {
        var (first, firstMaster) = KeyMaterial.Create(null, Passphrase, Iterations);
        var (second, secondMaster) = KeyMaterial.Create(null, Passphrase, Iterations);

        Assert.NotEqual(first.Salt, second.Salt);
        Assert.NotEqual(first.KeyCheck, second.KeyCheck);
        Assert.NotEqual(firstMaster, secondMaster);
    }

    [Fact]
    public void Unlock_WrongKey_ThrowsWrongKeyException()
    {
        var (info, _) = KeyMaterial.Create(Key, null, Iterations);
        var wrong = (byte[])Key.Clone();
        wrong[^1] ^= 1;

        var error = Assert.Throws<WrongKeyException>(() => KeyMaterial.Unlock(info, wrong, null));
        Assert.Contains("key", error.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void Unlock_WrongPassphrase_ThrowsWrongKeyException()
    {
        var (info, _) = KeyMaterial.Create(null, Passphrase, Iterations);

        var error = Assert.Throws<WrongKeyException>(() => KeyMaterial.Unlock(info, null, Passphrase + "!"));
        Assert.Contains("passphrase", error.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void Unlock_PassphraseForKeyStore_ThrowsWrongKeyException()
    {
        var (info, _) = KeyMaterial.Create(Key, null, Iterations);

        var error = Assert.Throws<WrongKeyException>(() => KeyMaterial.Unlock(info, null, Passphrase));
        Assert.Contains("not a passphrase", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Unlock_KeyForPassphraseStore_ThrowsWrongKeyException()
    {
        var (info, _) = KeyMaterial.Create(null, Passphrase, Iterations);

        var error = Assert.Throws<WrongKeyException>(() => KeyMaterial.Unlock(info, Key, null));
        Assert.Contains("not a key", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(EncryptionInfo.RawKdf)]
    [InlineData(EncryptionInfo.Pbkdf2Sha256Kdf)]
    public void Unlock_NeitherKeyNorPassphrase_ThrowsWrongKeyException(string kdf)
    {
        var (info, _) = kdf == EncryptionInfo.RawKdf
            ? KeyMaterial.Create(Key, null, Iterations)
            : KeyMaterial.Create(null, Passphrase, Iterations);

        var error = Assert.Throws<WrongKeyException>(() => KeyMaterial.Unlock(info, null, null));
        Assert.Contains("none was given", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Unlock_IterationCountChangedInManifest_ThrowsWrongKeyException()
    {
        var (info, _) = KeyMaterial.Create(null, Passphrase, Iterations);

        Assert.Throws<WrongKeyException>(() => KeyMaterial.Unlock(info with { Iterations = Iterations + 1 }, null, Passphrase));
    }

    [Fact]
    public void Unlock_EverySingleBitFlipOfKeyCheckOrSalt_ThrowsWrongKeyException()
    {
        var (info, _) = KeyMaterial.Create(Key, null, Iterations);

        for (var bit = 0; bit < info.KeyCheck.Length * 8; bit++)
        {
            var keyCheck = (byte[])info.KeyCheck.Clone();
            keyCheck[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.Throws<WrongKeyException>(() => KeyMaterial.Unlock(info with { KeyCheck = keyCheck }, Key, null));
        }

        for (var bit = 0; bit < info.Salt.Length * 8; bit++)
        {
            var salt = (byte[])info.Salt.Clone();
            salt[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.Throws<WrongKeyException>(() => KeyMaterial.Unlock(info with { Salt = salt }, Key, null));
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(16)]
    [InlineData(31)]
    [InlineData(33)]
    public void Create_KeyNot32Bytes_ThrowsArgumentException(int length)
    {
        Assert.Throws<ArgumentException>(() => KeyMaterial.Create(new byte[length], null, Iterations));
    }

    [Fact]
    public void Unlock_KeyNot32Bytes_ThrowsArgumentException()
    {
        var (info, _) = KeyMaterial.Create(Key, null, Iterations);

        Assert.Throws<ArgumentException>(() => KeyMaterial.Unlock(info, Key[..31], null));
    }

    [Fact]
    public void Create_BothOrNeither_ThrowsArgumentException()
    {
        Assert.Throws<ArgumentException>(() => KeyMaterial.Create(Key, Passphrase, Iterations));
        Assert.Throws<ArgumentException>(() => KeyMaterial.Create(null, null, Iterations));
    }

    [Fact]
    public void Unlock_Both_ThrowsArgumentException()
    {
        var (info, _) = KeyMaterial.Create(Key, null, Iterations);

        Assert.Throws<ArgumentException>(() => KeyMaterial.Unlock(info, Key, Passphrase));
    }

    [Fact]
    public void Create_EmptyPassphrase_ThrowsArgumentException()
    {
        Assert.Throws<ArgumentException>(() => KeyMaterial.Create(null, "", Iterations));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void Create_PassphraseWithIterationsNotPositive_ThrowsArgumentOutOfRangeException(int iterations)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => KeyMaterial.Create(null, Passphrase, iterations));
    }

    [Fact]
    public void Unlock_UnknownKdf_ThrowsInvalidDataException()
    {
        var (info, _) = KeyMaterial.Create(Key, null, Iterations);

        Assert.Throws<InvalidDataException>(() => KeyMaterial.Unlock(info with { Kdf = "scrypt" }, Key, null));
    }

    [Fact]
    public void Unlock_MalformedSaltOrKeyCheck_ThrowsInvalidDataException()
    {
        var (info, _) = KeyMaterial.Create(Key, null, Iterations);

        Assert.Throws<InvalidDataException>(() => KeyMaterial.Unlock(info with { Salt = info.Salt[..15] }, Key, null));
        Assert.Throws<InvalidDataException>(() => KeyMaterial.Unlock(info with { KeyCheck = info.KeyCheck[..59] }, Key, null));
        Assert.Throws<InvalidDataException>(() => KeyMaterial.Unlock(info with { KeyCheck = null! }, Key, null));
    }

    [Fact]
    public void EncryptionInfo_JsonRoundTrip_IsEqualAndStillUnlocks()
    {
        var (info, masterKey) = KeyMaterial.Create(null, Passphrase, Iterations);

        var json = JsonSerializer.Serialize(info);
        var restored = JsonSerializer.Deserialize<EncryptionInfo>(json);

        Assert.NotNull(restored);
        Assert.Equal(info, restored);
        Assert.Equal(info.GetHashCode(), restored.GetHashCode());
        Assert.Equal(masterKey, KeyMaterial.Unlock(restored, null, Passphrase));
    }

    [Fact]
    public void Unlock_MasterKey_DecryptsBlocksSealedUnderTheCreatedMasterKey()
    {
        var (info, createdKey) = KeyMaterial.Create(Key, null, Iterations);
        var plaintext = CodecPayloads.EnglishLikeText(200, seed: 8);
        var sealedBlock = new byte[plaintext.Length + AesGcmBlockCipher.TagSize];
        using (var writer = new AesGcmBlockCipher(createdKey))
        {
            writer.Encrypt(1, 2, default, 3, plaintext, sealedBlock, []);
        }

        using var reader = new AesGcmBlockCipher(KeyMaterial.Unlock(info, Key, null));
        var restored = new byte[plaintext.Length];

        Assert.True(reader.TryDecrypt(1, 2, default, 3, sealedBlock, restored, []));
        Assert.Equal(plaintext, restored);
    }
}
