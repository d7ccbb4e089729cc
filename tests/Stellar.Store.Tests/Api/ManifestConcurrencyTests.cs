namespace Stellar.Store.Tests.Api;

/// <summary>
/// Several collections start shards at the same time (their first writes, and rolls at a small shard size). Each
/// start saves the manifest; the saves must not trip over each other, and the manifest must list every shard.
/// </summary>
public sealed class ManifestConcurrencyTests : IDisposable
{
    private const int Collections = 8;
    private const int WritesPerCollection = 400;
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Writes_WhenManyCollectionsStartShardsAtOnce_AllSucceedAndSurviveReopen()
    {
        var options = new StoreOptions { MaxShardBytes = 64 * 1024 };
        var padding = new string('x', 1000);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var collections = Enumerable.Range(0, Collections)
                .Select(c => store.GetCollection<int, Player>($"c{c}", p => p.Id))
                .ToArray();
            await Task.WhenAll(collections.Select((collection, c) => Task.Run(async () =>
            {
                for (var i = 0; i < WritesPerCollection; i++)
                {
                    await collection.InsertAsync(Expected(c, i, padding));
                }
            })));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            Assert.Empty(store.Recovery.IgnoredFiles);
            for (var c = 0; c < Collections; c++)
            {
                var collection = store.GetCollection<int, Player>($"c{c}", p => p.Id);
                Assert.Equal(WritesPerCollection, collection.Count);

                // Each collection's own values: a shard listed under the wrong collection would show here.
                for (var i = 0; i < WritesPerCollection; i++)
                {
                    Assert.Equal(Expected(c, i, padding), collection.Get(i));
                }
            }
        }
    }

    private static Player Expected(int collection, int i, string padding) => new(i, $"c{collection}-{i}-{padding}", collection, i);
}
