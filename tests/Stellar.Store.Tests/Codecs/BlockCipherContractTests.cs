using Stellar.Store.Codecs;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// The <see cref="IBlockCipher"/> contract, written once: every cipher gets a subclass that says how to make one
/// from a master key. Ciphers made here are disposed with the test.
/// </summary>
public abstract class BlockCipherContractTests : IDisposable
{
    private const uint Collection = 3;
    private const uint Shard = 7;
    private const ulong Sequence = 42;

    private readonly List<IBlockCipher> _ciphers = [];

    public static IEnumerable<object[]> Payloads() => CodecPayloads.AllNames();

    public void Dispose()
    {
        foreach (var cipher in _ciphers)
        {
            (cipher as IDisposable)?.Dispose();
        }

        GC.SuppressFinalize(this);
    }

    [Theory]
    [MemberData(nameof(Payloads))]
    public void EncryptThenTryDecrypt_Payload_RoundTrips(string payload)
    {
        var cipher = Cipher();
        var plaintext = CodecPayloads.Get(payload);
        var header = Header();

        var sealedBlock = Encrypt(cipher, Collection, Shard, Sequence, plaintext, header);
        var restored = new GuardedBuffer(plaintext.Length);
        var ok = cipher.TryDecrypt(Collection, Shard, default, Sequence, sealedBlock, restored.Span, header);

        Assert.True(ok);
        restored.AssertGuardsIntact();
        Assert.True(restored.Span.SequenceEqual(plaintext), $"{payload}: decrypted bytes differ");
        if (plaintext.Length >= 16)
        {
            Assert.False(sealedBlock.AsSpan(0, plaintext.Length).SequenceEqual(plaintext), "the ciphertext is the plaintext");
        }
    }

    [Fact]
    public void TryDecrypt_EverySingleBitFlipOfCiphertextOrTag_ReturnsFalse()
    {
        var cipher = Cipher();
        var plaintext = CodecPayloads.EnglishLikeText(48, seed: 1);
        var header = Header();
        var sealedBlock = Encrypt(cipher, Collection, Shard, Sequence, plaintext, header);

        for (var bit = 0; bit < sealedBlock.Length * 8; bit++)
        {
            var corrupt = (byte[])sealedBlock.Clone();
            corrupt[bit / 8] ^= (byte)(1 << (bit % 8));
            var restored = new byte[plaintext.Length];
            Assert.False(cipher.TryDecrypt(Collection, Shard, default, Sequence, corrupt, restored, header), $"bit {bit} flipped");
            Assert.NotEqual(plaintext, restored);
        }
    }

    [Fact]
    public void TryDecrypt_EverySingleBitFlipOfAssociatedData_ReturnsFalse()
    {
        var cipher = Cipher();
        var plaintext = CodecPayloads.EnglishLikeText(48, seed: 1);
        var header = Header();
        var sealedBlock = Encrypt(cipher, Collection, Shard, Sequence, plaintext, header);

        for (var bit = 0; bit < header.Length * 8; bit++)
        {
            var corrupt = (byte[])header.Clone();
            corrupt[bit / 8] ^= (byte)(1 << (bit % 8));
            var restored = new byte[plaintext.Length];
            Assert.False(cipher.TryDecrypt(Collection, Shard, default, Sequence, sealedBlock, restored, corrupt), $"bit {bit} flipped");
        }
    }

    [Fact]
    public void TryDecrypt_AssociatedDataShortenedOrExtended_ReturnsFalse()
    {
        var cipher = Cipher();
        var plaintext = CodecPayloads.EnglishLikeText(48, seed: 1);
        var header = Header();
        var sealedBlock = Encrypt(cipher, Collection, Shard, Sequence, plaintext, header);
        var restored = new byte[plaintext.Length];

        Assert.False(cipher.TryDecrypt(Collection, Shard, default, Sequence, sealedBlock, restored, header.AsSpan(0, header.Length - 1)));
        Assert.False(cipher.TryDecrypt(Collection, Shard, default, Sequence, sealedBlock, restored, [.. header, 0]));
        Assert.False(cipher.TryDecrypt(Collection, Shard, default, Sequence, sealedBlock, restored, []));
    }

    [Theory]
    [InlineData(Collection + 1, Shard, Sequence)]
    [InlineData(Collection, Shard + 1, Sequence)]
    [InlineData(Collection, Shard, Sequence + 1)]
    [InlineData(Shard, Collection, Sequence)]
    public void TryDecrypt_DifferentCollectionShardOrSequence_ReturnsFalse(uint collection, uint shard, ulong sequence)
    {
        var cipher = Cipher();
        var plaintext = CodecPayloads.EnglishLikeText(48, seed: 1);
        var header = Header();
        var sealedBlock = Encrypt(cipher, Collection, Shard, Sequence, plaintext, header);

        var ok = cipher.TryDecrypt(collection, shard, default, sequence, sealedBlock, new byte[plaintext.Length], header);

        Assert.False(ok);
    }

    [Fact]
    public void TryDecrypt_DifferentMasterKey_ReturnsFalse()
    {
        var plaintext = CodecPayloads.EnglishLikeText(48, seed: 1);
        var header = Header();
        var sealedBlock = Encrypt(Cipher(keySeed: 1), Collection, Shard, Sequence, plaintext, header);

        var ok = Cipher(keySeed: 2).TryDecrypt(Collection, Shard, default, Sequence, sealedBlock, new byte[plaintext.Length], header);

        Assert.False(ok);
    }

    [Fact]
    public void TryDecrypt_SourceShorterThanOverhead_ReturnsFalse()
    {
        var cipher = Cipher();

        for (var length = 0; length < cipher.Overhead; length++)
        {
            Assert.False(cipher.TryDecrypt(Collection, Shard, default, Sequence, new byte[length], [], Header()), $"{length} bytes");
        }
    }

    [Fact]
    public void TryDecrypt_SourceTruncatedByOneByte_ReturnsFalse()
    {
        var cipher = Cipher();
        var plaintext = CodecPayloads.EnglishLikeText(48, seed: 1);
        var header = Header();
        var sealedBlock = Encrypt(cipher, Collection, Shard, Sequence, plaintext, header);

        var ok = cipher.TryDecrypt(Collection, Shard, default, Sequence, sealedBlock.AsSpan(0, sealedBlock.Length - 1), new byte[plaintext.Length - 1], header);

        Assert.False(ok);
    }

    [Fact]
    public void Encrypt_SamePlaintextUnder10000ShardSequencePairs_GivesDistinctCiphertexts()
    {
        var cipher = Cipher();
        var plaintext = CodecPayloads.EnglishLikeText(32, seed: 1);
        var header = Header();

        // The edges of both fields first, where a packing mistake would make two pairs share a nonce; then a grid.
        var pairs = new HashSet<(uint Shard, ulong Sequence)>
        {
            (0, 1UL << 32), (1, 1UL << 32), (2, 1UL << 32), (0, 2UL << 32), (2, 2UL << 32), (0, 1UL << 63),
            (0, uint.MaxValue), (1, uint.MaxValue), (uint.MaxValue, uint.MaxValue), (uint.MaxValue, 1UL << 32),
            (0, ulong.MaxValue), (uint.MaxValue, 0), (uint.MaxValue, 1), (uint.MaxValue, ulong.MaxValue),
            (1U << 31, 0), (1U << 31, 1UL << 63), (256, 0), (0, 256), (65536, 0), (0, 65536),
        };
        for (uint shard = 0; pairs.Count < 10_000; shard++)
        {
            for (ulong sequence = 0; sequence < 100 && pairs.Count < 10_000; sequence++)
            {
                pairs.Add((shard, sequence));
            }
        }

        var ciphertexts = new HashSet<string>();
        foreach (var (shard, sequence) in pairs)
        {
            var sealedBlock = Encrypt(cipher, Collection, shard, sequence, plaintext, header);
            Assert.True(ciphertexts.Add(Convert.ToHexString(sealedBlock)), $"shard {shard}, sequence {sequence} repeats a ciphertext");
        }
    }

    [Fact]
    public void EncryptAndTryDecrypt_FromManyThreads_RoundTrip()
    {
        var cipher = Cipher();
        const int Blocks = 4000;
        var sealedBlocks = new byte[Blocks][];
        var options = new ParallelOptions { MaxDegreeOfParallelism = 16 };

        // Few shards, many threads: many calls share a subkey at once.
        Parallel.For(0, Blocks, options, i =>
        {
            var (collection, shard, sequence, plaintext, header) = BlockInputs(i);
            sealedBlocks[i] = Encrypt(cipher, collection, shard, sequence, plaintext, header);
            var restored = new byte[plaintext.Length];
            Assert.True(cipher.TryDecrypt(collection, shard, default, sequence, sealedBlocks[i], restored, header), $"block {i}");
            Assert.Equal(plaintext, restored);
        });

        // Decrypt again in another order, so most blocks are opened on a thread other than the one that sealed them.
        Parallel.For(0, Blocks, options, j =>
        {
            var i = Blocks - 1 - j;
            var (collection, shard, sequence, plaintext, header) = BlockInputs(i);
            var restored = new byte[plaintext.Length];
            Assert.True(cipher.TryDecrypt(collection, shard, default, sequence, sealedBlocks[i], restored, header), $"block {i}");
            Assert.Equal(plaintext, restored);
        });
    }

    private protected abstract IBlockCipher CreateCipher(byte[] masterKey);

    private protected static byte[] MasterKey(int seed) => CodecPayloads.RandomBytes(32, seed);

    private protected static byte[] Header() => CodecPayloads.RandomBytes(24, seed: 99);

    private protected static byte[] Encrypt(IBlockCipher cipher, uint collection, uint shard, ulong sequence,
        byte[] plaintext, byte[] header)
    {
        var destination = new GuardedBuffer(plaintext.Length + cipher.Overhead);
        cipher.Encrypt(collection, shard, default, sequence, plaintext, destination.Span, header);
        destination.AssertGuardsIntact();
        return destination.Span.ToArray();
    }

    private protected IBlockCipher Cipher(int keySeed = 1)
    {
        var cipher = CreateCipher(MasterKey(keySeed));
        _ciphers.Add(cipher);
        return cipher;
    }

    private static (uint Collection, uint Shard, ulong Sequence, byte[] Plaintext, byte[] Header) BlockInputs(int i) =>
        ((uint)(i % 3), (uint)(i % 5), (ulong)i, CodecPayloads.EnglishLikeText(1 + (i * 31 % 3000), seed: i),
            BitConverter.GetBytes(i));
}
