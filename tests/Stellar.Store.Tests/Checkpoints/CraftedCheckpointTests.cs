using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Checkpoints;

/// <summary>
/// A checkpoint shares its sealed shards with the store by hard link, so a restore or a read-only open that wrote to one
/// would change the store's own file. Every shard of a checkpoint is sealed; a checkpoint whose manifest says otherwise
/// (edited, or a store's folder put there with a description) is refused, and the store's files stay byte for byte.
/// </summary>
public sealed class CraftedCheckpointTests : IDisposable
{
    private static readonly StoreOptions Options = new() { MaxShardBytes = 64 * 1024 };

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Restore_WhenTheCheckpointListsASharedShardAsActive_RefusesAndLeavesTheStoresFilesAsTheyWere()
    {
        var checkpoint = await CheckpointWithASharedShardUnsealedAsync();
        var storeFiles = Shards(_dir.Sub("store"));

        var failure = await Record.ExceptionAsync(async () =>
        {
            await StellarStore.RestoreAsync(checkpoint, _dir.Sub("restored"));
            await using var restored = await StellarStore.OpenAsync(_dir.Sub("restored"), Options);
            var accounts = restored.GetCollection<int, Account>("accounts", a => a.Id);
            for (var i = 0; i < 20; i++)
            {
                await accounts.UpsertAsync(new Account(i, -i));
            }
        });

        Assert.Equal(storeFiles, Shards(_dir.Sub("store")));
        Assert.IsType<CorruptStoreException>(failure);
        await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenReadOnlyAsync(checkpoint, Options));

        await using var store = await StellarStore.OpenAsync(_dir.Sub("store"), Options);
        Assert.Equal(new Account(7, 7_000), store.GetCollection<int, Account>("accounts", a => a.Id).Get(7));
    }

    /// <summary>
    /// A store whose first shard, sealed by a checkpoint's cut, is shared by a second checkpoint, whose manifest is then
    /// edited to list that shard last and unsealed, as a store's active shard. Returns the second checkpoint's path.
    /// </summary>
    private async Task<string> CheckpointWithASharedShardUnsealedAsync()
    {
        string path;
        await using (var store = await StellarStore.OpenAsync(_dir.Sub("store"), Options))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            for (var i = 0; i < 10; i++)
            {
                await accounts.UpsertAsync(new Account(i, i));
            }

            await store.CheckpointAsync("first");
            await accounts.UpsertAsync(new Account(7, 7_000));
            path = (await store.CheckpointAsync("second")).Path;
        }

        var manifestPath = Path.Combine(path, StoreFileNames.Manifest);
        var manifest = Manifest.Parse(File.ReadAllBytes(manifestPath), manifestPath);
        var index = manifest.Collections.FindIndex(c => c.Name == "accounts");
        var entry = manifest.Collections[index];
        Assert.True(entry.Shards.Count >= 2);
        var shared = entry.Shards[^2];
        Assert.True(File.Exists(Path.Combine(_dir.Sub("store"), StoreFileNames.Shard(entry.Id, shared))));
        var details = new Dictionary<uint, ManifestShard>(entry.ShardDetails)
        {
            [shared] = new ManifestShard { Salt = entry.ShardDetails[shared].Salt, FirstSequence = entry.ShardDetails[shared].FirstSequence },
        };
        details.Remove(entry.Shards[^1]);
        manifest.Collections[index] = ManifestStore.Copy(entry, shards: entry.Shards.Take(entry.Shards.Count - 1).ToList(), details: details);
        File.WriteAllBytes(manifestPath, manifest.Serialize());
        return path;
    }

    /// <summary>Every shard file of a directory and a hash of its bytes.</summary>
    private static SortedDictionary<string, string> Shards(string directory) => new(
        Directory.EnumerateFiles(directory, "*.shard").ToDictionary(f => Path.GetFileName(f)!, f => Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(f))))!,
        StringComparer.Ordinal);
}
