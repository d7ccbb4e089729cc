using Stellar.Store.Format;
using Stellar.Store.Tests.Reliability;

namespace Stellar.Store.Tests.Units;

/// <summary>
/// A manifest copied while the store runs and put back later (a backup, a cloud sync, a player after an item): the
/// open ignores the shards it never handed out, so a unit with a part in one of them must count nowhere.
/// </summary>
public sealed class RolledBackManifestTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Open_WhenTheManifestIsOlderThanAShardHoldingAUnitsPart_LeavesTheUnitOutEverywhere(bool encrypted)
    {
        var options = Options(encrypted);
        var manifestPath = Path.Combine(_dir.Path, StoreFileNames.Manifest);
        byte[] older;
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var (a, b) = (store.GetCollection<int, UnitItem>("a", x => x.Id), store.GetCollection<int, UnitItem>("b", x => x.Id));
            await store.WriteAsync(tx =>
            {
                tx.In(a).Upsert(new UnitItem(1, 100, "sword"));
                tx.In(b).Upsert(new UnitItem(1, 0, "empty"));
            });
            older = File.ReadAllBytes(manifestPath);
            await RollToANewShardAsync(a);

            // Its part in a lands in the shard the older manifest never handed out; b's in a shard it lists.
            await store.WriteAsync(tx =>
            {
                tx.In(a).Delete(1);
                tx.In(b).Upsert(new UnitItem(1, 100, "sword"));
            });
        }

        File.WriteAllBytes(manifestPath, older);
        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        Assert.Contains(reopened.Recovery.IgnoredFiles, name => name.EndsWith(StoreFileNames.Shard(0, 2)[9..], StringComparison.Ordinal));
        Assert.Equal("sword", reopened.GetCollection<int, UnitItem>("a", x => x.Id).Get(1)?.Note);
        Assert.Equal("empty", reopened.GetCollection<int, UnitItem>("b", x => x.Id).Get(1)?.Note);
    }

    private static StoreOptions Options(bool encrypted) => new()
    {
        Durability = Durability.Fsync,
        EncryptionKey = encrypted ? Enumerable.Range(1, 32).Select(i => (byte)i).ToArray() : null,
        MaxShardBytes = 64 * 1024,
        CompactionThreshold = 0,
    };

    /// <summary>Writes to <paramref name="collection"/> alone until it rolls to its second shard.</summary>
    private static async Task RollToANewShardAsync(Collection<int, UnitItem> collection)
    {
        for (var i = 0; i < 20; i++)
        {
            await collection.UpsertAsync(new UnitItem(1_000 + i, 0, new string('x', 4_000)));
        }
    }
}
