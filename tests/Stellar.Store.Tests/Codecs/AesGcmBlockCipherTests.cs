using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;
using Stellar.Store.Codecs;

namespace Stellar.Store.Tests.Codecs;

public sealed class AesGcmBlockCipherTests : BlockCipherContractTests
{
    [Fact]
    public void Overhead_Is16()
    {
        Assert.Equal(16, Cipher().Overhead);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(16)]
    [InlineData(31)]
    [InlineData(33)]
    [InlineData(64)]
    public void Constructor_KeyNot32Bytes_ThrowsArgumentException(int length)
    {
        Assert.Throws<ArgumentException>(() => new AesGcmBlockCipher(new byte[length]));
    }

    [Fact]
    public void Constructor_NullKey_ThrowsArgumentNullException()
    {
        Assert.Throws<ArgumentNullException>(() => new AesGcmBlockCipher(null!));
    }

    /// <summary>
    /// Spells the on-disk construction out with the BCL directly: HKDF subkey per (collection, shard), nonce =
    /// shard id then sequence, little-endian. A change to any of it would make existing stores unreadable.
    /// </summary>
    [Fact]
    public void Encrypt_Output_IsAesGcmUnderDocumentedSubkeyAndNonce()
    {
        var masterKey = MasterKey(5);
        const uint Collection = 0x01020304;
        const uint Shard = 0x0A0B0C0D;
        const ulong Sequence = 0x1122334455667788;
        var plaintext = CodecPayloads.EnglishLikeText(100, seed: 5);
        var header = Header();

        var info = new byte[30];
        Encoding.ASCII.GetBytes("stellar-store/block/v1").CopyTo(info, 0);
        BinaryPrimitives.WriteUInt32LittleEndian(info.AsSpan(22), Collection);
        BinaryPrimitives.WriteUInt32LittleEndian(info.AsSpan(26), Shard);
        var subkey = HKDF.DeriveKey(HashAlgorithmName.SHA256, masterKey, 32, [], info);
        var nonce = new byte[12];
        BinaryPrimitives.WriteUInt32LittleEndian(nonce, Shard);
        BinaryPrimitives.WriteUInt64LittleEndian(nonce.AsSpan(4), Sequence);
        var expected = new byte[plaintext.Length + 16];
        using (var aes = new AesGcm(subkey, 16))
        {
            aes.Encrypt(nonce, plaintext, expected.AsSpan(0, plaintext.Length), expected.AsSpan(plaintext.Length), header);
        }

        using var cipher = new AesGcmBlockCipher(masterKey);
        var actual = Encrypt(cipher, Collection, Shard, Sequence, plaintext, header);

        Assert.Equal(Convert.ToHexString(expected), Convert.ToHexString(actual));
    }

    [Fact]
    public void Constructor_CopiesKey_SoZeroingTheCallersArrayChangesNothing()
    {
        var plaintext = CodecPayloads.EnglishLikeText(64, seed: 6);
        var header = Header();
        var callersKey = MasterKey(6);
        using var cipher = new AesGcmBlockCipher(callersKey);
        using var reference = new AesGcmBlockCipher(MasterKey(6));

        CryptographicOperations.ZeroMemory(callersKey);

        // Shard 9 has not been used yet, so its subkey is derived after the caller zeroed the key.
        Assert.Equal(Encrypt(reference, 1, 9, 0, plaintext, header), Encrypt(cipher, 1, 9, 0, plaintext, header));
    }

    [Fact]
    public void Encrypt_DestinationNotPlaintextPlusTag_ThrowsArgumentException()
    {
        var cipher = Cipher();

        Assert.Throws<ArgumentException>(() => cipher.Encrypt(1, 1, default, 1, new byte[10], new byte[25], []));
        Assert.Throws<ArgumentException>(() => cipher.Encrypt(1, 1, default, 1, new byte[10], new byte[27], []));
    }

    [Fact]
    public void TryDecrypt_PlaintextNotSourceMinusTag_ThrowsArgumentException()
    {
        var cipher = Cipher();

        Assert.Throws<ArgumentException>(() => cipher.TryDecrypt(1, 1, default, 1, new byte[26], new byte[9], []));
        Assert.Throws<ArgumentException>(() => cipher.TryDecrypt(1, 1, default, 1, new byte[26], new byte[11], []));
    }

    [Fact]
    public void EncryptAndTryDecrypt_AfterDispose_ThrowObjectDisposedException()
    {
        var cipher = new AesGcmBlockCipher(MasterKey(7));
        var sealedBlock = Encrypt(cipher, 1, 1, 1, [1, 2, 3], []);

        cipher.Dispose();
        cipher.Dispose();

        Assert.Throws<ObjectDisposedException>(() => cipher.Encrypt(1, 1, default, 2, new byte[3], new byte[19], []));
        Assert.Throws<ObjectDisposedException>(() => cipher.TryDecrypt(1, 1, default, 1, sealedBlock, new byte[3], []));
    }

    private protected override IBlockCipher CreateCipher(byte[] masterKey) => new AesGcmBlockCipher(masterKey);
}
