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
            await Task.WhenAll(collections.Select(collection => Task.Run(async () =>
            {
                for (var i = 0; i < WritesPerCollection; i++)
                {
                    await collection.InsertAsync(new Player(i, padding, i, i));
                }
            })));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            Assert.Empty(store.Recovery.IgnoredFiles);
            for (var c = 0; c < Collections; c++)
            {
                Assert.Equal(WritesPerCollection, store.GetCollection<int, Player>($"c{c}", p => p.Id).Count);
            }
        }
    }
}
