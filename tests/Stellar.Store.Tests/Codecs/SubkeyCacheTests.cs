using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;
using Stellar.Store.Codecs;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// The cipher's bounded subkey cache: it never holds more keys than its bound, an evicted key is zeroed, and blocks
/// of an evicted shard still decrypt. The oracle is the documented construction spelled out with the BCL.
/// </summary>
public sealed class SubkeyCacheTests
{
    private static readonly byte[] Master = Enumerable.Range(0, 32).Select(i => (byte)(i * 3 + 1)).ToArray();
    private static readonly byte[] Header = Encoding.ASCII.GetBytes("a block header");

    [Fact]
    public async Task EncryptAndTryDecrypt_ManyShardsInParallel_CacheNeverExceedsItsBoundAndEveryBlockRoundTrips()
    {
        const int Capacity = 4;
        const int Shards = 200;
        using var cipher = new AesGcmBlockCipher(Master, Capacity);
        var maxSeen = 0;
        using var done = new CancellationTokenSource();
        var sampling = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var sampler = Task.Run(() =>
        {
            while (!done.IsCancellationRequested)
            {
                // The parallel work starts only once the sampler runs, so on a busy machine it cannot finish unseen.
                sampling.TrySetResult();
                var count = cipher.Subkeys.Count;
                if (count > Volatile.Read(ref maxSeen))
                {
                    Volatile.Write(ref maxSeen, count);
                }
            }
        });

        await sampling.Task;
        Parallel.For(0, Shards * 3, new ParallelOptions { MaxDegreeOfParallelism = 8 }, i =>
        {
            var shard = (uint)(i % Shards) + 1;
            var sequence = (ulong)(i / Shards) + 1;
            var plaintext = Plaintext(shard, sequence);
            var sealedBlock = new byte[plaintext.Length + AesGcmBlockCipher.TagSize];
            cipher.Encrypt(2, shard, Salt(shard), sequence, plaintext, sealedBlock, Header);
            Assert.Equal(Reference(2, shard, sequence, plaintext), sealedBlock);

            var back = new byte[plaintext.Length];
            Assert.True(cipher.TryDecrypt(2, shard, Salt(shard), sequence, Reference(2, shard, sequence, plaintext), back, Header));
            Assert.Equal(plaintext, back);
        });

        done.Cancel();
        await sampler;
        Assert.InRange(maxSeen, 1, Capacity);
        Assert.InRange(cipher.Subkeys.Count, 1, Capacity);
    }

    [Fact]
    public void TryDecrypt_ShardWhoseSubkeyWasEvicted_ZeroedTheEvictedSubkeyAndStillDecrypts()
    {
        using var cipher = new AesGcmBlockCipher(Master, subkeyCacheCapacity: 2);
        var first = Plaintext(1, 1);
        var sealedFirst = new byte[first.Length + AesGcmBlockCipher.TagSize];
        cipher.Encrypt(1, 1, Salt(1), 1, first, sealedFirst, Header);
        var evicted = Assert.Single(cipher.Subkeys.Snapshot()).Subkey;
        Assert.Contains(evicted, b => b != 0);

        foreach (var shard in new uint[] { 2, 3 })
        {
            var plaintext = Plaintext(shard, 1);
            cipher.Encrypt(1, shard, Salt(shard), 1, plaintext, new byte[plaintext.Length + AesGcmBlockCipher.TagSize], Header);
        }

        Assert.All(evicted, b => Assert.Equal(0, b));
        Assert.DoesNotContain(cipher.Subkeys.Snapshot(), k => k.Id == SubkeyId.Of(1, 1, Salt(1)));
        var back = new byte[first.Length];
        Assert.True(cipher.TryDecrypt(1, 1, Salt(1), 1, sealedFirst, back, Header));
        Assert.Equal(first, back);
        Assert.Equal(Reference(1, 1, 1, first), sealedFirst);
    }

    [Fact]
    public void Dispose_AfterUse_ZeroesTheMasterKeyAndEveryCachedSubkey()
    {
        var cipher = new AesGcmBlockCipher(Master, subkeyCacheCapacity: 8);
        for (uint shard = 1; shard <= 5; shard++)
        {
            var plaintext = Plaintext(shard, 1);
            cipher.Encrypt(1, shard, Salt(shard), 1, plaintext, new byte[plaintext.Length + AesGcmBlockCipher.TagSize], Header);
        }

        var master = cipher.MasterKey;
        var subkeys = cipher.Subkeys.Snapshot().Select(k => k.Subkey).ToArray();
        Assert.Equal(5, subkeys.Length);
        Assert.All(subkeys.Append(master), key => Assert.Contains(key, b => b != 0));

        cipher.Dispose();

        Assert.All(subkeys.Append(master), key => Assert.All(key, b => Assert.Equal(0, b)));
    }

    [Fact]
    public void Constructor_CacheCapacityNotPositive_ThrowsArgumentOutOfRangeException()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new AesGcmBlockCipher(Master, subkeyCacheCapacity: 0));
    }

    private static byte[] Plaintext(uint shard, ulong sequence) =>
        Encoding.UTF8.GetBytes($"block {sequence} of shard {shard}: " + new string('x', (int)(shard % 50)));

    /// <summary>A salt per shard, as a shard header would hold.</summary>
    private static byte[] Salt(uint shard) => Enumerable.Range(0, 16).Select(i => (byte)(shard * 7 + i)).ToArray();

    /// <summary>AES-256-GCM under HKDF(master, "stellar-store/block/v2" ‖ collection ‖ shard ‖ salt), nonce shard ‖ sequence.</summary>
    private static byte[] Reference(uint collection, uint shard, ulong sequence, byte[] plaintext)
    {
        var info = new byte[46];
        Encoding.ASCII.GetBytes("stellar-store/block/v2").CopyTo(info, 0);
        BinaryPrimitives.WriteUInt32LittleEndian(info.AsSpan(22), collection);
        BinaryPrimitives.WriteUInt32LittleEndian(info.AsSpan(26), shard);
        Salt(shard).CopyTo(info, 30);
        var subkey = HKDF.DeriveKey(HashAlgorithmName.SHA256, Master, 32, [], info);
        var nonce = new byte[12];
        BinaryPrimitives.WriteUInt32LittleEndian(nonce, shard);
        BinaryPrimitives.WriteUInt64LittleEndian(nonce.AsSpan(4), sequence);
        var sealedBlock = new byte[plaintext.Length + 16];
        using var aes = new AesGcm(subkey, 16);
        aes.Encrypt(nonce, plaintext, sealedBlock.AsSpan(0, plaintext.Length), sealedBlock.AsSpan(plaintext.Length), Header);
        return sealedBlock;
    }
}
