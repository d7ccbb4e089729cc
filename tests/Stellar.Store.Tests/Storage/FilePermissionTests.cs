using System.Runtime.Versioning;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Storage;

/// <summary>Who may read a store's files on Unix: its owner only, whatever the process umask lets through.</summary>
[UnsupportedOSPlatform("windows")] // every test is a UnixFact, skipped there
public sealed class FilePermissionTests : IDisposable
{
    private const UnixFileMode OwnerOnlyDirectory = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;
    private const UnixFileMode OwnerOnlyFile = UnixFileMode.UserRead | UnixFileMode.UserWrite;

    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [UnixFact]
    public async Task OpenAsync_NewStoreWrittenRolledAndCompacted_DirectoryIs0700AndEveryFile0600()
    {
        var path = _directory.Sub("store");
        var options = new StoreOptions { MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            for (var round = 0; round < 3; round++)
            {
                await players.WriteAsync(b =>
                {
                    for (var i = 0; i < 2_000; i++)
                    {
                        b.Upsert(new Player(i, $"player-{i}-round-{round}", round, i));
                    }
                });
            }

            await players.CompactAsync();
            Assert.Equal(1, players.Statistics.Compactions);
            AssertOwnerOnly(path);
        }

        AssertOwnerOnly(path);
    }

    [UnixFact]
    public async Task OpenAsync_ExistingDirectoryWithOtherMode_KeepsItsMode()
    {
        var path = _directory.Sub("shared");
        const UnixFileMode groupReadable = OwnerOnlyDirectory | UnixFileMode.GroupRead | UnixFileMode.GroupExecute;
        Directory.CreateDirectory(path, groupReadable);

        await using (var store = await StellarStore.OpenAsync(path))
        {
            await store.GetCollection<int, Player>("players", p => p.Id).UpsertAsync(new Player(1, "one", 1, 1));
        }

        Assert.Equal(groupReadable, File.GetUnixFileMode(path));
    }

    private static void AssertOwnerOnly(string path)
    {
        Assert.Equal(OwnerOnlyDirectory, File.GetUnixFileMode(path));
        var files = Directory.GetFiles(path);
        Assert.Contains(files, f => f.EndsWith(".shard", StringComparison.Ordinal));
        Assert.Contains(files, f => Path.GetFileName(f) == "MANIFEST");
        Assert.Contains(files, f => Path.GetFileName(f) == "LOCK");
        Assert.All(files, f => Assert.True(File.GetUnixFileMode(f) == OwnerOnlyFile, $"{Path.GetFileName(f)} is {File.GetUnixFileMode(f)}"));
    }
}
