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
        var older = await MoveTheSwordAcrossANewShardAsync(options);

        File.WriteAllBytes(manifestPath, older);
        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        Assert.Contains(reopened.Recovery.IgnoredFiles, name => name.EndsWith(StoreFileNames.Shard(0, 2)[9..], StringComparison.Ordinal));
        Assert.Equal("sword", reopened.GetCollection<int, UnitItem>("a", x => x.Id).Get(1)?.Note);
        Assert.Equal("empty", reopened.GetCollection<int, UnitItem>("b", x => x.Id).Get(1)?.Note);
    }

    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public async Task Open_WhenTheManifestIsOlderThanAShardHoldingAnEarlierRoundsPart_RefusesAndChangesNoFile(bool encrypted, bool otherCompression)
    {
        var options = Options(encrypted);
        var manifestPath = Path.Combine(_dir.Path, StoreFileNames.Manifest);
        byte[] older;
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var (a, b) = (store.GetCollection<int, UnitItem>("a", x => x.Id), store.GetCollection<int, UnitItem>("b", x => x.Id));
            var c = store.GetCollection<int, UnitItem>("c", x => x.Id);
            await store.WriteAsync(tx =>
            {
                tx.In(a).Upsert(new UnitItem(1, 100, "sword"));
                tx.In(b).Upsert(new UnitItem(1, 0, "empty"));
            });
            older = File.ReadAllBytes(manifestPath);
            await RollToANewShardAsync(a);
            await store.WriteAsync(tx =>
            {
                tx.In(a).Delete(1);
                tx.In(b).Upsert(new UnitItem(1, 100, "sword"));
            });

            // The session's last round has every part in a shard the older manifest lists.
            await store.WriteAsync(tx =>
            {
                tx.In(b).Upsert(new UnitItem(2, 5, "coins"));
                tx.In(c).Upsert(new UnitItem(2, 5, "coins"));
            });
        }

        var newer = File.ReadAllBytes(manifestPath);
        File.WriteAllBytes(manifestPath, older);
        var before = Files();

        // Leaving the round out would keep the later round, which may have been made because it succeeded; applying it
        // would apply it in b alone. The store refuses, and the manifest that lists the shard opens it whole. Asked for
        // another compression, it records that in no manifest it refuses.
        var refused = otherCompression ? Options(encrypted, Compression.Lz4) : options;
        var error = await Assert.ThrowsAsync<StaleManifestException>(() => StellarStore.OpenAsync(_dir.Path, refused));
        Assert.Equal(Path.Combine(_dir.Path, StoreFileNames.Shard(1, 2)), error.ShardPath);
        Assert.Equal(manifestPath, error.ManifestPath);
        AssertUnchanged(before, Files());

        File.WriteAllBytes(manifestPath, newer);
        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        Assert.Null(reopened.GetCollection<int, UnitItem>("a", x => x.Id).Get(1));
        Assert.Equal("sword", reopened.GetCollection<int, UnitItem>("b", x => x.Id).Get(1)?.Note);
        Assert.Equal("coins", reopened.GetCollection<int, UnitItem>("c", x => x.Id).Get(2)?.Note);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Open_WhenTheManifestIsOlderThanACollectionHoldingAnEarlierRoundsPart_RefusesAndChangesNoFile(bool encrypted)
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

            // A collection the older manifest does not have: collections a, b, the unit log, then this one.
            var c = store.GetCollection<int, UnitItem>("c", x => x.Id);
            await store.WriteAsync(tx =>
            {
                tx.In(b).Upsert(new UnitItem(1, 100, "sword"));
                tx.In(c).Upsert(new UnitItem(1, 100, "sold"));
            });
            await store.WriteAsync(tx =>
            {
                tx.In(a).Upsert(new UnitItem(2, 5, "coins"));
                tx.In(b).Upsert(new UnitItem(2, 5, "coins"));
            });
        }

        File.WriteAllBytes(manifestPath, older);
        var before = Files();
        var error = await Assert.ThrowsAsync<StaleManifestException>(() => StellarStore.OpenAsync(_dir.Path, options));
        Assert.Equal(Path.Combine(_dir.Path, StoreFileNames.Shard(4, 1)), error.ShardPath);
        AssertUnchanged(before, Files());
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Open_WhenTheManifestIsOlderThanAShardHoldingAPartALaterOpenSettled_RefusesAndChangesNoFile(bool encrypted)
    {
        var options = Options(encrypted);
        var manifestPath = Path.Combine(_dir.Path, StoreFileNames.Manifest);
        var older = await MoveTheSwordAcrossANewShardAsync(options);

        // An open with the manifest that lists the part's shard settles the round as committed, for good.
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            Assert.Equal("sword", store.GetCollection<int, UnitItem>("b", x => x.Id).Get(1)?.Note);
        }

        File.WriteAllBytes(manifestPath, older);
        if (encrypted)
        {
            // Every open of an encrypted store starts a new shard, so the settled record went into a log shard the older
            // manifest never handed out either: its log still names the round's parts, and the round is left out everywhere.
            await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
            Assert.Equal("sword", reopened.GetCollection<int, UnitItem>("a", x => x.Id).Get(1)?.Note);
            Assert.Equal("empty", reopened.GetCollection<int, UnitItem>("b", x => x.Id).Get(1)?.Note);
            return;
        }

        var before = Files();
        var error = await Assert.ThrowsAsync<StaleManifestException>(() => StellarStore.OpenAsync(_dir.Path, options));
        Assert.Equal(Path.Combine(_dir.Path, StoreFileNames.Shard(1, 2)), error.ShardPath);
        AssertUnchanged(before, Files());
    }

    private static StoreOptions Options(bool encrypted, Compression compression = Compression.None) => new()
    {
        Compression = compression,
        Durability = Durability.Fsync,
        EncryptionKey = encrypted ? Enumerable.Range(1, 32).Select(i => (byte)i).ToArray() : null,
        MaxShardBytes = 64 * 1024,
        CompactionThreshold = 0,
    };

    /// <summary>
    /// A unit puts a sword in a and an empty slot in b; the manifest is copied; a rolls to a new shard; a second unit
    /// moves the sword from a to b, its part in a landing in the shard the copy never handed out and b's in one it lists.
    /// Returns the copy.
    /// </summary>
    private async Task<byte[]> MoveTheSwordAcrossANewShardAsync(StoreOptions options)
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var (a, b) = (store.GetCollection<int, UnitItem>("a", x => x.Id), store.GetCollection<int, UnitItem>("b", x => x.Id));
        await store.WriteAsync(tx =>
        {
            tx.In(a).Upsert(new UnitItem(1, 100, "sword"));
            tx.In(b).Upsert(new UnitItem(1, 0, "empty"));
        });
        var older = File.ReadAllBytes(Path.Combine(_dir.Path, StoreFileNames.Manifest));
        await RollToANewShardAsync(a);
        await store.WriteAsync(tx =>
        {
            tx.In(a).Delete(1);
            tx.In(b).Upsert(new UnitItem(1, 100, "sword"));
        });
        return older;
    }

    /// <summary>Writes to <paramref name="collection"/> alone until it rolls to its second shard.</summary>
    private static async Task RollToANewShardAsync(Collection<int, UnitItem> collection)
    {
        for (var i = 0; i < 20; i++)
        {
            await collection.UpsertAsync(new UnitItem(1_000 + i, 0, new string('x', 4_000)));
        }
    }

    private Dictionary<string, byte[]> Files() =>
        Directory.EnumerateFiles(_dir.Path).Where(f => Path.GetFileName(f) != StoreFileNames.Lock).ToDictionary(f => Path.GetFileName(f)!, File.ReadAllBytes);

    private static void AssertUnchanged(Dictionary<string, byte[]> before, Dictionary<string, byte[]> after)
    {
        Assert.Equal(before.Keys.Order(StringComparer.Ordinal), after.Keys.Order(StringComparer.Ordinal));
        foreach (var (name, bytes) in before)
        {
            Assert.True(bytes.AsSpan().SequenceEqual(after[name]), name + " changed");
        }
    }
}
