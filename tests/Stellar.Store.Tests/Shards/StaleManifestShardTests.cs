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

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Open_WithAManifestFromTheMiddleOfACompactionPutBackOverANewerFolder_DeletesNoShardANewerManifestNeeds(bool encrypted)
    {
        var options = Options(encrypted);
        var storage = new InterleavingStorage(new FileStorage(_dir.Path));
        var model = new Dictionary<int, string>();
        Dictionary<string, byte[]>? backup = null;
        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            var players = Players(store);
            await WriteAsync(players, 0, 300, model);
            await WriteAsync(players, 0, 300, model);

            // A backup of the folder taken while the compaction writes its first output: the manifest that handed the
            // outputs' ids out without listing them yet, and the shards it lists.
            storage.BeforeOpen = name =>
            {
                if (StoreFileNames.IsCompacting(name) && backup is null)
                {
                    backup = ShardFiles().Append(StoreFileNames.Manifest).ToDictionary(n => n, n => File.ReadAllBytes(PathOf(n)));
                }
            };
            await players.CompactAsync();
            storage.BeforeOpen = null;

            // Enough after the compaction to roll shards the backup's manifest never handed out.
            await WriteAsync(players, 1_000, 400, model);
        }

        Assert.NotNull(backup);
        var newest = File.ReadAllBytes(PathOf(StoreFileNames.Manifest));
        var present = ShardFiles().ToDictionary(n => n, n => File.ReadAllBytes(PathOf(n)));
        Assert.Contains(backup.Keys, n => n != StoreFileNames.Manifest && !present.ContainsKey(n));

        // The player copies the backup over the newer folder, skipping the files it still has, then opens the store.
        foreach (var (name, bytes) in backup.Where(b => b.Key == StoreFileNames.Manifest || !present.ContainsKey(b.Key)))
        {
            File.WriteAllBytes(PathOf(name), bytes);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            Assert.All(present.Keys, n => Assert.DoesNotContain(n, store.Recovery.RemovedFiles));
        }

        Assert.All(present, p => Assert.Equal(p.Value, File.ReadAllBytes(PathOf(p.Key))));

        // Seeing the mistake, the player puts the newest manifest back: every record written is there.
        File.WriteAllBytes(PathOf(StoreFileNames.Manifest), newest);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = Players(store);
            Assert.Equal(model.Count, players.Count);
            Assert.All(model, m => Assert.Equal(m.Value, players.Get(m.Key)?.Name));
        }
    }

    private static async Task WriteAsync(Collection<int, Player> players, int from, int count, Dictionary<int, string> model)
    {
        for (var k = from; k < from + count; k++)
        {
            var name = $"p{k}-{model.Count}-{new string('x', 400)}";
            await players.UpsertAsync(new Player(k, name, k, k));
            model[k] = name;
        }
    }
}
