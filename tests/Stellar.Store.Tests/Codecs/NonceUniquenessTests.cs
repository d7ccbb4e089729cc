using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// AES-GCM's nonce is (shard id, block sequence) under a per-(collection, shard) subkey, so two different blocks
/// must never carry the same (collection, shard, sequence). These tests watch every block that ever reaches the
/// storage, over many blocks, shards, collections and sessions, ending each session with a clean close, a process
/// crash, or a power loss (cutting files back to their last flush, with or without a torn tail).
/// </summary>
public sealed class NonceUniquenessTests
{
    private static readonly byte[] Key = CodecPayloads.RandomBytes(32, seed: 21);

    [Theory]
    [InlineData("clean close")]
    [InlineData("process crash")]
    [InlineData("power loss")]
    [InlineData("power loss with torn tail")]
    public async Task Blocks_AcrossShardsSessionsAndRecoveries_NeverRepeatANonce(string ending)
    {
        var storage = new MemoryStorage();
        var options = new StoreOptions { EncryptionKey = Key, MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };
        var seen = new Dictionary<(uint Collection, uint Shard, ulong Sequence), byte[]>();
        var random = new Random(5);
        const int Sessions = 5;
        for (var session = 0; session < Sessions; session++)
        {
            var store = await StellarStore.OpenAsync(storage, options);
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            for (var i = 0; i < 40; i++)
            {
                await players.UpsertAsync(new Player(i, $"s{session}", session, i));
                var voxels = new byte[6_000];
                random.NextBytes(voxels);
                await chunks.UpsertAsync(new Chunk { Id = $"c{i % 7}", Voxels = voxels });

                // Half the sessions make part of their writes durable; the others lose all of them to a power loss,
                // which leaves the shard the session started empty.
                if (session % 2 == 0 && i == 20)
                {
                    await store.FlushAsync();
                }
            }

            Observe(storage, seen);
            switch (ending)
            {
                case "clean close":
                    await store.DisposeAsync();
                    break;
                case "process crash":
                    await Crash.AndAbandonAsync(storage, store, losesUnsyncedData: false);
                    break;
                case "power loss":
                    await Crash.AndAbandonAsync(storage, store, losesUnsyncedData: true);
                    break;
                default:
                    await Crash.AndAbandonAsync(storage, store, losesUnsyncedData: true, tornTail: new Random(session));
                    break;
            }
        }

        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            Assert.InRange(store.GetCollection<int, Player>("players", p => p.Id).Count, 21, 40); // 0..20 were flushed
            Assert.True(store.GetCollection<string, Chunk>("chunks", c => c.Id).Count > 0);
            await store.GetCollection<int, Player>("players", p => p.Id).UpsertAsync(new Player(0, "last", 0, 0));
            Observe(storage, seen);
        }

        Assert.True(seen.Keys.Select(k => (k.Collection, k.Shard)).Distinct().Count() > 10, "the scenario wrote too few shards");
        Assert.True(seen.Count > 300, "the scenario wrote too few blocks");
    }

    [Theory]
    [InlineData("clean close")]
    [InlineData("power loss")]
    public async Task CompactAsync_OfAnEncryptedStoreAcrossReopens_NeverRepeatsANonceUsedBefore(string ending)
    {
        // A compaction re-encrypts every live record into new shards: each output block needs a (shard, sequence)
        // that no block before it had, in this session or an earlier one, also after a crash forgot a session.
        var storage = new MemoryStorage();
        var options = new StoreOptions { EncryptionKey = Key, MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };
        var seen = new Dictionary<(uint Collection, uint Shard, ulong Sequence), byte[]>();
        var expected = new Dictionary<int, Player>();
        const int Sessions = 4;
        var compacted = 0;
        for (var session = 0; session < Sessions; session++)
        {
            var store = await StellarStore.OpenAsync(storage, options);
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            for (var round = 0; round < 3; round++)
            {
                for (var start = 0; start < 1_500; start += 100)
                {
                    var batch = Enumerable.Range(start, 100).Select(i => new Player(i, $"s{session}-r{round}-{i}", round, i)).ToList();
                    await players.WriteAsync(b => batch.ForEach(p => b.Upsert(p)));
                    batch.ForEach(p => expected[p.Id] = p);
                }

                Observe(storage, seen);
                var before = seen.Count;
                await players.CompactAsync();
                Observe(storage, seen);
                Assert.True(seen.Count > before, $"session {session} round {round}: the compaction wrote no new block");
                compacted += seen.Count - before;
                Assert.All(expected, e => Assert.Equal(e.Value, players.Get(e.Key)));
            }

            if (ending == "clean close")
            {
                await store.DisposeAsync();
            }
            else
            {
                // Compaction output is fsynced before its swap, so it survives; the writes after it need not.
                await store.FlushAsync();
                await Crash.AndAbandonAsync(storage, store, losesUnsyncedData: true);
            }
        }

        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            Assert.All(expected, e => Assert.Equal(e.Value, players.Get(e.Key)));
            await players.CompactAsync();
            Observe(storage, seen);
        }

        Assert.True(compacted >= Sessions * 3, $"the compactions wrote only {compacted} new blocks");
    }

    /// <summary>Records every block in the storage; fails if a (collection, shard, sequence) was seen before with other bytes.</summary>
    private static void Observe(MemoryStorage storage, Dictionary<(uint Collection, uint Shard, ulong Sequence), byte[]> seen)
    {
        foreach (var block in ShardFiles.Blocks(storage))
        {
            var nonce = (block.Header.CollectionId, block.Header.ShardId, block.Header.Sequence);
            if (seen.TryGetValue(nonce, out var earlier))
            {
                Assert.True(earlier.AsSpan().SequenceEqual(block.Bytes),
                    $"collection {nonce.CollectionId}, shard {nonce.ShardId}, sequence {nonce.Sequence} encrypted two different blocks");
            }
            else
            {
                seen.Add(nonce, block.Bytes);
            }
        }
    }
}
