using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Reliability;

/// <summary>Several collections of one store written at once: they share the manifest, which every shard roll replaces.</summary>
public sealed class ConcurrencyTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Collections_RollingShardsAtTheSameTime_KeepEveryAcknowledgedWrite()
    {
        // Each collection rolls a 64 KiB shard every few writes, so manifest replaces of different collections overlap.
        var options = new StoreOptions { MaxShardBytes = 64 * 1024 };
        const int Collections = 4;
        var writes = Stress.Pick(300, 3000);
        var payload = new string('x', 4000);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var collections = Enumerable.Range(0, Collections).Select(c => store.GetCollection<int, Player>($"c{c}", p => p.Id)).ToArray();
            await Task.WhenAll(collections.Select(c => Task.Run(async () =>
            {
                for (var i = 0; i < writes; i++)
                {
                    await c.InsertAsync(new Player(i, payload, i, i));
                }
            })));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            for (var c = 0; c < Collections; c++)
            {
                var players = store.GetCollection<int, Player>($"c{c}", p => p.Id);
                Assert.Equal(writes, players.Count);
                Assert.All(Enumerable.Range(0, writes), i => Assert.Equal(i, players.Get(i)?.Level));
            }

            Assert.DoesNotContain(store.Recovery.IgnoredFiles, f => f.EndsWith(".shard", StringComparison.Ordinal));
        }
    }
}
