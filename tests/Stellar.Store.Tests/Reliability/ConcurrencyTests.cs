using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Several collections of one store written at once: they share the manifest, which every shard start and roll
/// replaces. The saves must not trip over each other, and the manifest must list every shard under its collection.
/// </summary>
public sealed class ConcurrencyTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Collections_StartingAndRollingShardsAtTheSameTime_KeepEveryAcknowledgedWriteUnderItsCollection()
    {
        // Each collection starts its first shard at once and rolls a 64 KiB shard every few writes, so manifest
        // replaces of different collections overlap.
        var options = new StoreOptions { MaxShardBytes = 64 * 1024 };
        const int Collections = 8;
        var writes = Stress.Pick(300, 3000);
        var payload = new string('x', 4000);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var collections = Enumerable.Range(0, Collections).Select(c => store.GetCollection<int, Player>($"c{c}", p => p.Id)).ToArray();
            await Task.WhenAll(collections.Select((collection, c) => Task.Run(async () =>
            {
                for (var i = 0; i < writes; i++)
                {
                    await collection.InsertAsync(Expected(c, i, payload));
                }
            })));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            for (var c = 0; c < Collections; c++)
            {
                var players = store.GetCollection<int, Player>($"c{c}", p => p.Id);
                Assert.Equal(writes, players.Count);

                // Each collection's own values: a shard listed under the wrong collection would show here.
                Assert.All(Enumerable.Range(0, writes), i => Assert.Equal(Expected(c, i, payload), players.Get(i)));
            }

            Assert.Empty(store.Recovery.IgnoredFiles);
        }
    }

    private static Player Expected(int collection, int i, string payload) => new(i, $"c{collection}-{i}-{payload}", collection, i);
}
