using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>A power loss (files cut back to their last flush, plus a random torn part of the rest) while writes roll across shards.</summary>
public sealed class PowerLossTests
{
    private const int Writes = 300;

    /// <summary>
    /// Only the active shard may end in a torn block; so a shard must be on the device whole before its successor
    /// takes writes, or a power loss would tear a sealed shard and the store would refuse to open. After the crash
    /// the store opens and holds a prefix of the writes (all of them in <see cref="Durability.Fsync"/> mode).
    /// </summary>
    [Theory]
    [InlineData(Durability.Buffered)]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Fsync)]
    public async Task Open_AfterAPowerLossWhileWritesRolledAcrossShards_OpensWithAPrefixOfTheWrites(Durability durability)
    {
        for (var seed = 0; seed < 8; seed++)
        {
            var storage = new MemoryStorage();
            var options = new StoreOptions { Durability = durability, MaxShardBytes = 64 * 1024 };
            var store = await StellarStore.OpenAsync(storage, options);
            var chunks = store.GetCollection<int, Numbered>("chunks", c => c.Id);
            for (var i = 0; i < Writes; i++)
            {
                await chunks.InsertAsync(new Numbered(i, new byte[1_000]));
            }

            Assert.True(ShardFiles.Names(storage).Count > 3, "the writes did not roll across shards");
            storage.SimulateCrash(losesUnsyncedData: true, tornTail: new Random(seed));
            await Record.ExceptionAsync(async () => await store.DisposeAsync()); // its process is gone

            await using var reopened = await StellarStore.OpenAsync(storage, options);
            var again = reopened.GetCollection<int, Numbered>("chunks", c => c.Id);
            var kept = (int)again.Count;
            Assert.Equal(Enumerable.Range(0, kept), again.Query().Select(c => c.Id).Order());
            if (durability == Durability.Fsync)
            {
                Assert.Equal(Writes, kept);
            }
        }
    }
}

/// <summary>A record with an id and a payload.</summary>
public sealed record Numbered(int Id, byte[] Payload);
