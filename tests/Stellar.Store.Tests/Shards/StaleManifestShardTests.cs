using Stellar.Store.Format;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// A manifest copied while the store ran and put back later, then written on and opened again: every shard file that
/// held data when the copy came back still holds the same bytes at every later open, whether the copy never handed its
/// id out or handed it out (in memory, saved by another collection's change) before listing it.
/// </summary>
public sealed class StaleManifestShardTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static StoreOptions Options(bool encrypted) => new()
    {
        Durability = Durability.Fsync,
        EncryptionKey = encrypted ? Enumerable.Range(1, 32).Select(i => (byte)i).ToArray() : null,
        MaxShardBytes = 64 * 1024,
        CompactionThreshold = 0,
    };

    private static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    private static async Task WriteAsync(Collection<int, Player> players, int from, int count)
    {
        for (var k = from; k < from + count; k++)
        {
            await players.UpsertAsync(new Player(k, $"p{k}-{new string('x', 400)}", k, k));
        }
    }

    private string PathOf(string name) => Path.Combine(_dir.Path, name);

    private string[] ShardFiles() =>
        Directory.EnumerateFiles(_dir.Path, "*" + StoreFileNames.ShardExtension).Select(f => Path.GetFileName(f)!).Order(StringComparer.Ordinal).ToArray();

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Open_AfterAnOpenWithAnOlderManifestWroteOn_KeepsTheShardsThatManifestNeverHandedOut(bool encrypted)
    {
        var options = Options(encrypted);
        byte[] older;
        string[] atCopy;
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            await WriteAsync(Players(store), 0, 100);
            older = File.ReadAllBytes(PathOf(StoreFileNames.Manifest));
            atCopy = ShardFiles();
            await WriteAsync(Players(store), 100, 400);
        }

        var newer = ShardFiles().Except(atCopy).ToArray();
        Assert.NotEmpty(newer);
        var contents = newer.ToDictionary(n => n, n => File.ReadAllBytes(PathOf(n)));
        File.WriteAllBytes(PathOf(StoreFileNames.Manifest), older);

        long kept;
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            Assert.All(newer, n => Assert.Contains(n, store.Recovery.IgnoredFiles));
            kept = Players(store).Count;

            // Enough to roll new shards, whose manifest replaces save a next id past the ignored files.
            await WriteAsync(Players(store), 10_000, 400);
        }

        for (var open = 0; open < 2; open++)
        {
            await using var store = await StellarStore.OpenAsync(_dir.Path, options);
            Assert.Empty(store.Recovery.RemovedFiles);
            Assert.All(newer, n => Assert.Contains(n, store.Recovery.IgnoredFiles));
            Assert.All(contents, c => Assert.Equal(c.Value, File.ReadAllBytes(PathOf(c.Key))));
            var players = Players(store);
            Assert.Equal(kept + 400 + (open * 400), players.Count);
            Assert.Equal($"p10399-{new string('x', 400)}", players.Get(10_399)?.Name);
            await WriteAsync(players, 20_000 + (open * 400), 400);
        }
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Open_WhenTheManifestHandedOutANewShardsIdBeforeListingIt_KeepsThatShard(bool encrypted)
    {
        var options = Options(encrypted);
        var storage = new InterleavingStorage(new FileStorage(_dir.Path));
        byte[]? older = null;
        var rolled = StoreFileNames.Shard(1, 2);
        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            var players = Players(store);
            await WriteAsync(players, 0, 10);

            // As the collection creates its next shard, whose id is handed out in memory and not listed yet, another
            // collection is added: its manifest replace saves the new next id, and that manifest is copied.
            storage.BeforeOpen = name =>
            {
                if (name == rolled && older is null)
                {
                    store.GetCollection<int, Player>("guilds", p => p.Id);
                    older = File.ReadAllBytes(PathOf(StoreFileNames.Manifest));
                }
            };
            await WriteAsync(players, 10, 200);
            storage.BeforeOpen = null;
        }

        Assert.NotNull(older);
        var contents = File.ReadAllBytes(PathOf(rolled));
        Assert.True(contents.Length > ShardHeader.Size, "the new shard holds blocks");
        File.WriteAllBytes(PathOf(StoreFileNames.Manifest), older);

        for (var open = 0; open < 3; open++)
        {
            await using var store = await StellarStore.OpenAsync(_dir.Path, options);
            Assert.DoesNotContain(rolled, store.Recovery.RemovedFiles);
            Assert.Contains(rolled, store.Recovery.IgnoredFiles);
            Assert.Equal(contents, File.ReadAllBytes(PathOf(rolled)));
            await WriteAsync(Players(store), 10_000 + (open * 400), 400);
        }
    }
}
