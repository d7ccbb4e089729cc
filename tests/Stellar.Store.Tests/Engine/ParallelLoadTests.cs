using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Engine;

/// <summary>
/// The load at open decodes blocks on several threads and applies keys in partitions on several threads; what it
/// builds must be what applying every acknowledged write in order builds, checked against a plain dictionary model.
/// </summary>
public sealed class ParallelLoadTests : IDisposable
{
    /// <summary>Values with names longer than this are kept on disk (the node holds a location, not the value).</summary>
    private const int LargeValueBytes = 1024;

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(1, false)]
    [InlineData(3, false)]
    [InlineData(8, false)]
    [InlineData(8, true)]
    public async Task Open_AfterOverwritesAndDeletesAcrossManyShards_LoadsExactlyTheModel(int parallelism, bool compressedAndEncrypted)
    {
        var options = new StoreOptions
        {
            MaxShardBytes = 64 * 1024,
            CompactionThreshold = 0,
            MaxDegreeOfParallelism = parallelism,
            LargeValueThreshold = LargeValueBytes,
            Compression = compressedAndEncrypted ? Compression.Lz4 : Compression.None,
            EncryptionKey = compressedAndEncrypted ? new byte[32] : null,
        };
        var model = new Dictionary<int, Player>();
        var random = new Random(parallelism);
        long liveBytes;
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var imported = Enumerable.Range(0, 3_000).Select(id => MakePlayer(id, 0, random)).ToList();
            await players.BulkImportAsync(imported);
            imported.ForEach(p => model[p.Id] = p);

            for (var round = 1; round <= 80; round++)
            {
                // Distinct keys per batch, so the model can apply the batch's writes in any order.
                var keys = Enumerable.Range(0, 60).Select(_ => random.Next(0, 3_500)).Distinct().ToList();
                var batch = keys.Select(id => (Id: id, Player: random.Next(4) == 0 ? null : MakePlayer(id, round, random))).ToList();
                await players.WriteAsync(b =>
                {
                    foreach (var (id, player) in batch)
                    {
                        if (player is null)
                        {
                            b.Delete(id);
                        }
                        else
                        {
                            b.Upsert(player);
                        }
                    }
                });
                foreach (var (id, player) in batch)
                {
                    if (player is null)
                    {
                        model.Remove(id);
                    }
                    else
                    {
                        model[id] = player;
                    }
                }

                // Single writes too: a key deleted and written again in blocks of its own.
                var single = random.Next(0, 3_500);
                Assert.Equal(model.Remove(single), await players.DeleteAsync(single));
                var back = MakePlayer(single, round, random);
                await players.UpsertAsync(back);
                model[single] = back;
            }

            Assert.True(Directory.GetFiles(_dir.Path, "*.shard").Length > 2, "the writes span several shards");
            liveBytes = players.Statistics.LiveBytes;
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            Assert.Equal(model.Count, players.Count);
            Assert.Equal(model.Values.OrderBy(p => p.Id), players.Query(_ => true).OrderBy(p => p.Id));
            for (var id = 0; id < 3_500; id++)
            {
                Assert.Equal(model.GetValueOrDefault(id), players.Get(id));
            }

            // The load accounts live bytes as the writes did, record by record.
            Assert.Equal(liveBytes, players.Statistics.LiveBytes);

            // The loaded collection takes writes on top of what it loaded.
            await players.UpsertAsync(MakePlayer(1, 1_000, random));
            Assert.Equal(model.Count + (model.ContainsKey(1) ? 0 : 1), players.Count);
        }
    }

    [Fact]
    public async Task Open_WithStringKeysOverwrittenAcrossShards_LoadsTheLastWriteOfEachKey()
    {
        var options = new StoreOptions { MaxShardBytes = 64 * 1024, CompactionThreshold = 0, MaxDegreeOfParallelism = 5 };
        var model = new Dictionary<string, Chunk>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            for (var round = 0; round < 6; round++)
            {
                var written = Enumerable.Range(0, 700).Where(i => (i + round) % 7 != 0)
                    .Select(i => new Chunk { Id = $"chunk-{i}", Voxels = [(byte)round, (byte)i, 1, 2, 3] }).ToList();
                await chunks.BulkImportAsync(written);
                written.ForEach(c => model[c.Id] = c);
                foreach (var id in Enumerable.Range(0, 700).Where(i => (i * 3 + round) % 11 == 0).Select(i => $"chunk-{i}"))
                {
                    Assert.Equal(model.Remove(id), await chunks.DeleteAsync(id));
                }
            }
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            Assert.Equal(model.Count, chunks.Count);
            foreach (var (id, chunk) in model)
            {
                Assert.Equal(chunk.Voxels, chunks.Get(id)?.Voxels);
            }

            Assert.Equal(model.Keys.Order(), chunks.Query(_ => true).Select(c => c.Id).Order());
        }
    }

    private static Player MakePlayer(int id, int round, Random random)
    {
        // One in eight is large enough to be kept on disk.
        var name = random.Next(8) == 0 ? new string((char)('a' + (id % 26)), LargeValueBytes + 10) + round : $"p{id}-{round}";
        return new Player(id, name, round, random.NextInt64(0, 1_000_000));
    }
}
