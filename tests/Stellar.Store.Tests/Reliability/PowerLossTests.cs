using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// A crash of the machine (power loss) over <see cref="MemoryStorage"/>: unsynced bytes are lost, and a random
/// prefix of them survives, as on a device that had written part of them. Whatever the mode promised must be there,
/// and the store must open whatever the mode: only the last shard may end in a torn block.
/// </summary>
public sealed class PowerLossTests
{
    [Fact]
    public async Task Writes_AfterPowerLossEmptiedTheShardThatFollowsACompaction_OpenAgainWithEveryValue()
    {
        // A compaction gives its output blocks low sequences, so the shard rolled after it starts far above the
        // output's last block. When a power loss empties that shard (its header and listing were synced, its block
        // was not), the next write must still carry the sequence the manifest expects of the shard's first block.
        var options = new StoreOptions { Durability = Durability.WriteThrough };
        var memory = new MemoryStorage();
        var expected = new Dictionary<int, string>();
        var store = await StellarStore.OpenAsync(memory, options);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        for (var i = 0; i < 40; i++)
        {
            await players.UpsertAsync(new Player(i % 4, $"v{i}", i, i));
            expected[i % 4] = $"v{i}";
        }

        await players.CompactAsync();
        await store.FlushAsync();
        await players.UpsertAsync(new Player(9, "lost to the power loss", 0, 0));
        await Crash.AndAbandonAsync(memory, store, losesUnsyncedData: true);

        await using (var reopened = await StellarStore.OpenAsync(memory, options))
        {
            var again = reopened.GetCollection<int, Player>("players", p => p.Id);
            await again.UpsertAsync(new Player(5, "after the crash", 0, 0));
            expected[5] = "after the crash";
        }

        await using (var reopened = await StellarStore.OpenAsync(memory, options))
        {
            var again = reopened.GetCollection<int, Player>("players", p => p.Id);
            Assert.Equal(expected.Count, again.Count);
            Assert.All(expected, entry => Assert.Equal(entry.Value, again.Get(entry.Key)?.Name));
        }
    }

    [Theory]
    [InlineData(Durability.Buffered)]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Fsync)]
    public async Task Open_AfterPowerLossBehindShardRolls_OpensWithEveryFlushedWriteAndAPrefixOfTheRest(Durability durability)
    {
        var options = new StoreOptions { Durability = durability, MaxShardBytes = 64 * 1024 };
        for (var seed = 0; seed < 20; seed++)
        {
            var memory = new MemoryStorage();
            var store = await StellarStore.OpenAsync(memory, options);
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.InsertAsync(new Player(0, "flushed", 0, 0));
            await store.FlushAsync();

            // About 320 KiB, so several 64 KiB shards are sealed after the flush.
            for (var i = 1; i <= 40; i++)
            {
                await players.InsertAsync(new Player(i, new string('x', 8_000), i, i));
            }

            await Crash.AndAbandonAsync(memory, store, losesUnsyncedData: true, tornTail: new Random(seed));

            await using var reopened = await StellarStore.OpenAsync(memory, options);
            var again = reopened.GetCollection<int, Player>("players", p => p.Id);
            Assert.Equal("flushed", again.Get(0)?.Name);
            var kept = (int)again.Count;
            Assert.All(Enumerable.Range(0, kept), i => Assert.Equal(i, again.Get(i)?.Level));
            if (durability == Durability.Fsync)
            {
                Assert.Equal(41, kept);
            }
        }
    }

    /// <summary>
    /// Only the active shard may end in a torn block; so a shard must be on the device whole before its successor
    /// takes writes, or a power loss would tear a sealed shard and the store would refuse to open. After the crash
    /// the store opens and holds a prefix of the writes (all of them in <see cref="Durability.Fsync"/> mode), each
    /// with the bytes written.
    /// </summary>
    [Theory]
    [InlineData(Durability.Buffered)]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Fsync)]
    public async Task Open_AfterAPowerLossWhileWritesRolledAcrossShards_OpensWithAPrefixOfTheWrites(Durability durability)
    {
        const int Writes = 300;
        for (var seed = 0; seed < 8; seed++)
        {
            var storage = new MemoryStorage();
            var options = new StoreOptions { Durability = durability, MaxShardBytes = 64 * 1024 };
            var store = await StellarStore.OpenAsync(storage, options);
            var chunks = store.GetCollection<int, Numbered>("chunks", c => c.Id);
            for (var i = 0; i < Writes; i++)
            {
                await chunks.InsertAsync(new Numbered(i, Payload(i)));
            }

            Assert.True(ShardFiles.Names(storage).Count > 3, "the writes did not roll across shards");
            await Crash.AndAbandonAsync(storage, store, losesUnsyncedData: true, tornTail: new Random(seed));

            await using var reopened = await StellarStore.OpenAsync(storage, options);
            var again = reopened.GetCollection<int, Numbered>("chunks", c => c.Id);
            var kept = (int)again.Count;
            Assert.Equal(Enumerable.Range(0, kept), again.Query().Select(c => c.Id).Order());
            Assert.All(Enumerable.Range(0, kept), i => Assert.Equal(Payload(i), again.Get(i)!.Payload));
            if (durability == Durability.Fsync)
            {
                Assert.Equal(Writes, kept);
            }
        }
    }

    private static byte[] Payload(int i) => Enumerable.Range(0, 1_000).Select(b => (byte)(b + i)).ToArray();
}
