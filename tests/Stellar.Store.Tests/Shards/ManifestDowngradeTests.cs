using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using System.Text.Json.Nodes;
using Stellar.Store.Format;
using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// An encrypted store's manifest relabelled format 1 (which had no MAC), its MAC removed and its body edited, by someone
/// without the key: the open refuses it naming the manifest, before it deletes, cuts or rewrites any file, as it refuses
/// the same edit at the current format (<see cref="ChainIntegrityTests"/>). Genuine format-1 stores still open.
/// </summary>
public sealed class ManifestDowngradeTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static StoreOptions Options() => new()
    {
        Durability = Durability.Fsync,
        EncryptionKey = WorkloadOptions.EncryptionKey(),
        MaxShardBytes = 64 * 1024,
        CompactionThreshold = 0,
    };

    public static TheoryData<string> Edits() => ["drop the newest shard", "unseal a sealed shard", "remove a collection"];

    [Theory]
    [MemberData(nameof(Edits))]
    public async Task Open_WhenAnEditedManifestIsRelabelledUnsignedFormat1_RefusesItNamingTheManifestAndChangesNoFile(string edit)
    {
        var path = await WriteStoreAsync();
        Forge(path, root =>
        {
            Apply(edit, root);
            root["FormatVersion"] = 1;
        });
        var forged = Snapshot(path);

        var error = await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenAsync(path, Options()));
        Assert.Equal(Path.Combine(path, StoreFileNames.Manifest), error.Path);
        Assert.Contains("downgraded", error.Message, StringComparison.Ordinal);
        AssertUnchanged(forged, Snapshot(path));
    }

    [Theory]
    [MemberData(nameof(Edits))]
    public async Task Open_WhenAnEditedManifestIsStrippedToAFormat1Body_RefusesItForItsShardHeadersAndChangesNoFile(string edit)
    {
        // Everything a later format adds to the body is gone too: only the shards' headers, which format 1 never wrote,
        // still tell.
        var path = await WriteStoreAsync();
        Forge(path, root =>
        {
            Apply(edit, root);
            root["FormatVersion"] = 1;
            root.AsObject().Remove("Generation");
            foreach (var collection in root["Collections"]!.AsArray())
            {
                collection!.AsObject().Remove("ShardDetails");
                collection.AsObject().Remove("CompactedThrough");
            }
        });
        var forged = Snapshot(path);

        var error = await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenAsync(path, Options()));
        Assert.Equal(Path.Combine(path, StoreFileNames.Manifest), error.Path);
        Assert.Contains("shard header", error.Message, StringComparison.Ordinal);
        AssertUnchanged(forged, Snapshot(path));
    }

    [Fact]
    public async Task Open_WhenAManifestRelabelledUnsignedFormat1ListsNoShard_RefusesItForTheShardHeadersInTheDirectoryAndChangesNoFile()
    {
        // With no shard listed, no listed shard's header gives the downgrade away; the files it left out still do. Taken,
        // the open would sign a manifest that lists nothing, and the next open would delete every shard it no longer lists.
        var path = await WriteStoreAsync();
        Forge(path, root =>
        {
            root["FormatVersion"] = 1;
            root.AsObject().Remove("Generation");
            foreach (var collection in root["Collections"]!.AsArray())
            {
                collection!["Shards"] = new JsonArray();
                collection.AsObject().Remove("ShardDetails");
                collection.AsObject().Remove("CompactedThrough");
            }
        });
        var forged = Snapshot(path);

        var error = await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenAsync(path, Options()));
        Assert.Equal(Path.Combine(path, StoreFileNames.Manifest), error.Path);
        Assert.Contains("shard header", error.Message, StringComparison.Ordinal);
        AssertUnchanged(forged, Snapshot(path));
    }

    [Fact]
    public async Task Open_AfterAGenuineFormat1EncryptedStoreWithAnUnlistedShardWasOpened_StillKeepsTheFile()
    {
        // The first open signs the manifest it could not vouch for; the file it kept must not become one that the signed
        // manifest handed out and no longer lists, which the next open would delete.
        var path = CopyFixture("format1-encrypted");
        var unlisted = StoreFileNames.Shard(1, 4);
        var bytes = File.ReadAllBytes(Path.Combine(path, StoreFileNames.Shard(1, 3)));
        File.WriteAllBytes(Path.Combine(path, unlisted), bytes);
        await (await StellarStore.OpenAsync(path, Options())).DisposeAsync();

        await using var store = await StellarStore.OpenAsync(path, Options());
        Assert.Equal(FormatFixture.Expected().Count, store.GetCollection<int, WorkloadItem>("fixture", i => i.Id).Count);
        Assert.Empty(store.Recovery.RemovedFiles);
        Assert.Contains(unlisted, store.Recovery.IgnoredFiles);
        Assert.Equal(bytes, File.ReadAllBytes(Path.Combine(path, unlisted)));
    }

    [Fact]
    public async Task Open_OfAGenuineFormat1EncryptedStoreWithAnUnlistedShard_KeepsTheFileAndReportsItIgnored()
    {
        // A format-1 manifest has no MAC, so nothing vouches for its shard list: a shard it does not list, even one
        // whose id it handed out, is kept rather than deleted.
        var path = CopyFixture("format1-encrypted");
        var unlisted = StoreFileNames.Shard(1, 4);
        var bytes = File.ReadAllBytes(Path.Combine(path, StoreFileNames.Shard(1, 3)));
        File.WriteAllBytes(Path.Combine(path, unlisted), bytes);

        await using var store = await StellarStore.OpenAsync(path, Options());
        Assert.Equal(FormatFixture.Expected().Count, store.GetCollection<int, WorkloadItem>("fixture", i => i.Id).Count);
        Assert.Empty(store.Recovery.RemovedFiles);
        Assert.Contains(unlisted, store.Recovery.IgnoredFiles);
        Assert.Equal(bytes, File.ReadAllBytes(Path.Combine(path, unlisted)));
    }

    private static void Apply(string edit, JsonNode root)
    {
        var collections = root["Collections"]!.AsArray();
        var items = collections.Single(c => c!["Name"]!.GetValue<string>() == "items")!;
        var shards = items["Shards"]!.AsArray();
        switch (edit)
        {
            case "drop the newest shard":
                var dropped = shards[^1]!.GetValue<uint>();
                shards.RemoveAt(shards.Count - 1);
                items["ShardDetails"]!.AsObject().Remove(dropped.ToString(CultureInfo.InvariantCulture));
                break;
            case "unseal a sealed shard":
                var first = shards[0]!.GetValue<uint>().ToString(CultureInfo.InvariantCulture);
                var details = items["ShardDetails"]![first]!.AsObject();
                Assert.NotNull(details["SealedLength"]);
                details["SealedLength"] = null;
                details["LastSequence"] = null;
                break;
            case "remove a collection":
                collections.Remove(collections.Single(c => c!["Name"]!.GetValue<string>() == "other"));
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(edit), edit, null);
        }
    }

    /// <summary>Rewrites the manifest with an edited body, its header's version set to the body's, without a MAC, CRC fixed: no key needed.</summary>
    private static void Forge(string path, Action<JsonNode> edit)
    {
        var manifestPath = Path.Combine(path, StoreFileNames.Manifest);
        var manifest = File.ReadAllBytes(manifestPath);
        var root = JsonNode.Parse(ManifestSurgery.Body(manifest))!;
        edit(root);
        BinaryPrimitives.WriteInt32LittleEndian(manifest.AsSpan(4), root["FormatVersion"]!.GetValue<int>());
        File.WriteAllBytes(manifestPath, ManifestSurgery.Reseal(manifest, Encoding.UTF8.GetBytes(root.ToJsonString()), macKey: null));
    }

    private async Task<string> WriteStoreAsync()
    {
        var path = _dir.Sub("store");
        await using var store = await StellarStore.OpenAsync(path, Options());
        var items = store.GetCollection<int, WorkloadItem>("items", i => i.Id);
        var other = store.GetCollection<int, WorkloadItem>("other", i => i.Id);
        for (var i = 0; i < 40; i++)
        {
            await items.UpsertAsync(new WorkloadItem(i, 0, 0, new string((char)('a' + (i % 26)), 4_000 + i)));
        }

        await other.UpsertAsync(new WorkloadItem(1, 0, 0, "other"));
        Assert.True(Directory.EnumerateFiles(path, "c00000001-*.shard").Count() >= 3, "the history spans several shards");
        return path;
    }

    private static Dictionary<string, byte[]> Snapshot(string path) =>
        Directory.EnumerateFiles(path).Where(f => Path.GetFileName(f) != "LOCK").ToDictionary(f => Path.GetFileName(f)!, File.ReadAllBytes);

    private static void AssertUnchanged(Dictionary<string, byte[]> before, Dictionary<string, byte[]> after)
    {
        Assert.Equal(before.Keys.Order(StringComparer.Ordinal), after.Keys.Order(StringComparer.Ordinal));
        foreach (var (name, bytes) in before)
        {
            Assert.True(bytes.AsSpan().SequenceEqual(after[name]), name + " changed");
        }
    }

    private string CopyFixture(string name)
    {
        var source = Path.Combine(AppContext.BaseDirectory, "Format", "Fixtures", name);
        var target = _dir.Sub(name);
        Directory.CreateDirectory(target);
        foreach (var file in Directory.EnumerateFiles(source))
        {
            File.Copy(file, Path.Combine(target, Path.GetFileName(file)));
        }

        return target;
    }
}
