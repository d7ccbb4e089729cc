using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Engine;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// Blocks of one commit group are encoded on several cores at once but must reach the shards, and be replayed at
/// open, strictly in commit order. Every key is written many times across many blocks, so a block appended out of
/// order would leave an older value as the last one.
/// </summary>
public sealed class ParallelEncodeOrderTests
{
    private static readonly byte[] Key = CodecPayloads.RandomBytes(32, seed: 31);

    /// <summary>
    /// One group of 20,000 upserts of 50 keys (about a hundred 64 KiB blocks across several shards), committed by
    /// the engine with 4 encoders: the records on disk, read back block by block in replay order, are the commit
    /// order exactly, and a reload ends every key on its last write.
    /// </summary>
    [Fact]
    public async Task Commit_OneGroupOfManyBlocksEncodedInParallel_AppendsAndReplaysInCommitOrder()
    {
        const int Writes = 20_000;
        const int Keys = 50;
        var storage = new MemoryStorage();
        var manifest = ManifestStore.Open(storage, storage.Location, new StoreOptions(), out _);
        var id = manifest.GetOrAddCollection("ordered", "int", nameof(Versioned)).Id;
        using var cipher = new AesGcmBlockCipher(Key);
        var codec = new BlockCodec(new Lz4Compressor(), new Lz4Compressor(), cipher);
        var padding = CodecPayloads.EnglishLikeText(300, seed: 1);

        using (var chain = new ShardChain(storage, manifest, id, 1024 * 1024, Durability.WriteThrough))
        {
            var engine = new CollectionEngine<int, Versioned>("ordered", chain, codec, RecordSerializer.Default, parallelism: 4, maxShardBytes: 1024 * 1024, compactionThreshold: 0, largeValueBytes: 16 * 1024, decided: _ => false);
            engine.Load([]);
            for (var i = 0; i < Writes; i++)
            {
                var write = SingleWrite<int, Versioned>.Create(RecordSerializer.Default, WriteKind.Upsert, i % Keys, new Versioned(i % Keys, i, padding), 4096, 1 << 20);
                Assert.Null(engine.Stage(write, out _));
            }

            await engine.CommitAsync(null);
            AssertLastWritesWin(engine.Map, Writes, Keys);
        }

        var shards = manifest.Collection(id).Shards.Count;
        Assert.True(shards > 3, $"the group spans {shards} shards");
        using (var chain = new ShardChain(storage, manifest, id, 1024 * 1024, Durability.WriteThrough))
        {
            chain.Scan(sealActive: true);
            Assert.True(chain.Blocks.Count > 40, $"the group made {chain.Blocks.Count} blocks");

            var replayed = new List<int>(Writes);
            foreach (var block in chain.Blocks)
            {
                var raw = codec.Decode(chain.ReadBlock(block), block.Header, chain.SaltOf(block.ShardId), chain.PathOf(block.ShardId), block.Offset);
                var position = 0;
                while (position < raw.Length)
                {
                    Assert.True(RecordFormat.TryRead(raw, ref position, out _, out _, out var value));
                    replayed.Add(RecordSerializer.Default.Deserialize<Versioned>(value.ToArray()).Sequence);
                }
            }

            Assert.Equal(Enumerable.Range(0, Writes), replayed);

            var reloaded = new CollectionEngine<int, Versioned>("ordered", chain, codec, RecordSerializer.Default, parallelism: 4, maxShardBytes: 1024 * 1024, compactionThreshold: 0, largeValueBytes: 16 * 1024, decided: _ => false);
            reloaded.Load([]);
            AssertLastWritesWin(reloaded.Map, Writes, Keys);
        }
    }

    /// <summary>
    /// The same property through the public API under load: 8 tasks each keep 100 writes of their own keys in
    /// flight at once (so groups hold many blocks), with LZ4 and AES-GCM on and 4 encoders. Each key ends on the
    /// write its task issued last, in memory and after reopen.
    /// </summary>
    [Fact]
    public async Task Upserts_ManyInFlightFromManyTasks_EndOnEachKeysLastWriteAfterReopen()
    {
        const int Tasks = 8;
        const int KeysPerTask = 20;
        const int Windows = 15;
        const int Window = 100;
        var storage = new MemoryStorage();
        var options = new StoreOptions { Compression = Compression.Lz4, EncryptionKey = Key, MaxDegreeOfParallelism = 4, MaxShardBytes = 1024 * 1024, CompactionThreshold = 0 };
        var padding = CodecPayloads.EnglishLikeText(1_500, seed: 2);

        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            var values = store.GetCollection<int, Versioned>("values", v => v.Key);
            await Task.WhenAll(Enumerable.Range(0, Tasks).Select(t => Task.Run(async () =>
            {
                var sequence = 0;
                for (var w = 0; w < Windows; w++)
                {
                    // Issued from one thread in order, so their commit order is their issue order.
                    var inFlight = new Task[Window];
                    for (var i = 0; i < Window; i++)
                    {
                        inFlight[i] = values.UpsertAsync(new Versioned((t * KeysPerTask) + (sequence % KeysPerTask), sequence, padding));
                        sequence++;
                    }

                    await Task.WhenAll(inFlight);
                }
            })));

            AssertEveryTasksLastWriteWins(values, Tasks, KeysPerTask, Windows * Window);
        }

        Assert.True(ShardFiles.Blocks(storage).Count > 10, "too few blocks to test their order");
        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            AssertEveryTasksLastWriteWins(store.GetCollection<int, Versioned>("values", v => v.Key), Tasks, KeysPerTask, Windows * Window);
        }
    }

    private static void AssertLastWritesWin(Stellar.Store.Snapshots.VersionedMap<int, Versioned> map, int writes, int keys)
    {
        for (var key = 0; key < keys; key++)
        {
            Assert.True(map.TryGetLatest(key, out var node));
            var last = writes - keys + key;
            Assert.Equal(last, node.Value!.Sequence);
        }
    }

    private static void AssertEveryTasksLastWriteWins(Collection<int, Versioned> values, int tasks, int keysPerTask, int writesPerTask)
    {
        Assert.Equal(tasks * keysPerTask, values.Count);
        for (var t = 0; t < tasks; t++)
        {
            for (var k = 0; k < keysPerTask; k++)
            {
                var last = writesPerTask - keysPerTask + k;
                Assert.Equal(last, values.Get((t * keysPerTask) + k)!.Sequence);
            }
        }
    }
}

[MessagePackObject]
public sealed record Versioned(
    [property: Key(0)] int Key,
    [property: Key(1)] int Sequence,
    [property: Key(2)] byte[] Padding);
