using System.Text;
using System.Text.Json.Nodes;
using Stellar.Store.Format;
using Stellar.Store.TestHost.Workload;
using Stellar.Store.Tests.Format;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// Whole blocks or shards taken away, or a manifest edited, by someone who can rewrite the files and their
/// checksums: the store refuses to open instead of reading a shorter history as if it were the real one.
/// </summary>
public sealed class ChainIntegrityTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static StoreOptions Options(bool encrypted, long maxShardBytes = 64L * 1024 * 1024) => new()
    {
        Durability = Durability.Fsync,
        EncryptionKey = encrypted ? WorkloadOptions.EncryptionKey() : null,
        MaxShardBytes = maxShardBytes,
        CompactionThreshold = 0,
    };

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Open_WhenABlockIsCutFromTheMiddleOfTheActiveShard_RefusesItNamingTheShard(bool encrypted)
    {
        // Insert 1, delete 1, insert 2: each its own block. Without the middle block, 1 would come back from the dead.
        var path = _dir.Sub("store");
        await using (var store = await StellarStore.OpenAsync(path, Options(encrypted)))
        {
            var items = store.GetCollection<int, WorkloadItem>("items", i => i.Id);
            await items.InsertAsync(new WorkloadItem(1, 0, 0, "one"));
            await items.DeleteAsync(1);
            await items.InsertAsync(new WorkloadItem(2, 0, 0, "two"));
        }

        var shard = Directory.EnumerateFiles(path, "*.shard").Single();
        var bytes = File.ReadAllBytes(shard);
        var blocks = ShardFiles.Blocks(Path.GetFileName(shard), bytes);
        Assert.Equal(3, blocks.Count);
        var middle = blocks[1];
        File.WriteAllBytes(shard, [.. bytes.AsSpan(0, (int)middle.Offset), .. bytes.AsSpan((int)middle.Offset + middle.Bytes.Length)]);

        var error = await Assert.ThrowsAsync<CorruptBlockException>(() => StellarStore.OpenAsync(path, Options(encrypted)));
        Assert.Equal(shard, error.Path);
        Assert.Equal(middle.Offset, error.Offset);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Open_WhenASealedShardLosesItsLastBlocks_RefusesItNamingTheShard(bool encrypted)
    {
        var path = _dir.Sub("store");
        await WriteShardsAsync(path, Options(encrypted, maxShardBytes: 64 * 1024));
        var sealedShard = Directory.EnumerateFiles(path, "*.shard").Order(StringComparer.Ordinal).First();
        var bytes = File.ReadAllBytes(sealedShard);
        var last = ShardFiles.Blocks(Path.GetFileName(sealedShard), bytes)[^1];

        // Cut at a block boundary: every block left is whole and valid, only the shard is shorter than it was.
        File.WriteAllBytes(sealedShard, bytes[..(int)last.Offset]);

        var error = await Assert.ThrowsAsync<CorruptBlockException>(() => StellarStore.OpenAsync(path, Options(encrypted, maxShardBytes: 64 * 1024)));
        Assert.Equal(sealedShard, error.Path);
    }

    [Fact]
    public async Task Open_WhenTheManifestOfAnEncryptedStoreIsEditedAndResealed_RefusesItNamingTheManifest()
    {
        var path = _dir.Sub("store");
        var options = Options(encrypted: true, maxShardBytes: 64 * 1024);
        await WriteShardsAsync(path, options);
        var manifestPath = Path.Combine(path, StoreFileNames.Manifest);
        var manifest = File.ReadAllBytes(manifestPath);

        // Drop the newest shard from the chain, as someone rolling back one player's progress would, and fix the CRC.
        var root = JsonNode.Parse(ManifestSurgery.Body(manifest))!;
        var shards = root["Collections"]![0]!["Shards"]!.AsArray();
        var dropped = shards[^1]!.GetValue<uint>();
        shards.RemoveAt(shards.Count - 1);
        root["Collections"]![0]!["ShardDetails"]!.AsObject().Remove(dropped.ToString(System.Globalization.CultureInfo.InvariantCulture));
        var forged = ManifestSurgery.Reseal(manifest, Encoding.UTF8.GetBytes(root.ToJsonString()), macKey: null);

        // Without a MAC it is not a manifest of an encrypted store; with the old MAC kept in place it fails the MAC.
        var withOldMac = ManifestSurgery.Reseal(manifest, Encoding.UTF8.GetBytes(root.ToJsonString()), macKey: new byte[32]);
        foreach (var edited in new[] { forged, withOldMac })
        {
            File.WriteAllBytes(manifestPath, edited);
            var error = await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenAsync(path, options));
            Assert.Equal(manifestPath, error.Path);
        }

        File.WriteAllBytes(manifestPath, manifest);
        await using var intact = await StellarStore.OpenAsync(path, options);
        Assert.Equal(40L, intact.GetCollection<int, WorkloadItem>("items", i => i.Id).Count);
    }

    [Fact]
    public async Task ManifestGeneration_GrowsWithEveryChangeAndIsReportedAtTheNextOpen()
    {
        var path = _dir.Sub("store");
        var options = Options(encrypted: true, maxShardBytes: 64 * 1024);
        ulong atClose;
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            var start = store.ManifestGeneration;
            var items = store.GetCollection<int, WorkloadItem>("items", i => i.Id);
            for (var i = 0; i < 40; i++)
            {
                await items.UpsertAsync(new WorkloadItem(i, 0, 0, new string('x', 4_000)));
            }

            atClose = store.ManifestGeneration;
            Assert.True(atClose > start + 1, $"generation {start} -> {atClose} over a new collection and several shard rolls");
        }

        await using var reopened = await StellarStore.OpenAsync(path, options);
        Assert.Equal(atClose, reopened.Recovery.ManifestGeneration);
    }

    [Fact]
    public async Task Open_WithAnOlderManifestRestored_OpensTheOlderStateKeepsNewerShardsUntouchedAndReportsAnOlderGeneration()
    {
        var path = _dir.Sub("store");
        var options = Options(encrypted: true, maxShardBytes: 64 * 1024);
        await WriteShardsAsync(path, options);
        var manifestPath = Path.Combine(path, StoreFileNames.Manifest);
        var older = File.ReadAllBytes(manifestPath);
        ulong latest;
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            var items = store.GetCollection<int, WorkloadItem>("items", i => i.Id);
            for (var i = 40; i < 80; i++)
            {
                await items.UpsertAsync(new WorkloadItem(i, 0, 0, new string('z', 4_000)));
            }

            latest = store.ManifestGeneration;
        }

        // A player restores an older MANIFEST (a backup, a sync conflict): nothing inside the directory says it is old.
        var newer = Directory.EnumerateFiles(path, "*.shard").ToDictionary(f => f, File.ReadAllBytes);
        File.WriteAllBytes(manifestPath, older);
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            Assert.True(store.Recovery.ManifestGeneration < latest, "the restored manifest reports an older generation than the one recorded");
            var items = store.GetCollection<int, WorkloadItem>("items", i => i.Id);
            Assert.Equal(40L, items.Count);

            // Writing again rolls to a shard id past every file on disk: no newer shard is reused or overwritten.
            await items.UpsertAsync(new WorkloadItem(1_000, 0, 0, "after the restore"));
        }

        foreach (var (file, bytes) in newer)
        {
            Assert.Equal(bytes, File.ReadAllBytes(file));
        }
    }

    private static async Task WriteShardsAsync(string path, StoreOptions options)
    {
        await using var store = await StellarStore.OpenAsync(path, options);
        var items = store.GetCollection<int, WorkloadItem>("items", i => i.Id);
        for (var i = 0; i < 40; i++)
        {
            await items.UpsertAsync(new WorkloadItem(i, 0, 0, new string((char)('a' + (i % 26)), 4_000 + i)));
        }

        Assert.True(Directory.EnumerateFiles(path, "*.shard").Count() >= 3, "the history spans several shards");
    }
}
