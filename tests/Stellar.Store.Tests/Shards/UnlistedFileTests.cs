using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// The open-time rule for files the manifest does not list: none is deleted before every listed shard of every
/// collection was found and verified, and a file whose id the manifest never handed out (a MANIFEST rolled back,
/// or copied older than its shards) is never deleted or reused.
/// </summary>
public sealed class UnlistedFileTests : IDisposable
{
    private static readonly StoreOptions Options = new() { MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static Collection<int, Player> Players(StellarStore store, string name = "players") => store.GetCollection<int, Player>(name, p => p.Id);

    private static async Task WriteAsync(Collection<int, Player> players, int from, int count, string tag)
    {
        for (var i = from; i < from + count; i += 200)
        {
            var start = i;
            await players.WriteAsync(b =>
            {
                for (var k = start; k < Math.Min(start + 200, from + count); k++)
                {
                    b.Upsert(new Player(k, $"{tag}-{k}-{new string('x', 60)}", k, k));
                }
            });
        }
    }

    private string File(string name) => Path.Combine(_dir.Path, name);

    [Theory]
    [InlineData(uint.MaxValue)]
    [InlineData(uint.MaxValue - 1)]
    public async Task Open_AfterAFileWithAShardIdAtTheEndOfTheRangeWasPutInTheFolder_StillOpensWithEveryAcknowledgedWrite(uint planted)
    {
        // Someone without the key drops one file in the folder. Kept as a file a newer manifest may list, its id must not
        // lead the store to save a manifest that no open accepts (a kept or listed id the manifest never handed out).
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            await WriteAsync(Players(store), 0, 200, "first");
        }

        var name = $"c00000001-{planted:x8}.shard";
        var bytes = Enumerable.Range(0, 100).Select(i => (byte)i).ToArray();
        await System.IO.File.WriteAllBytesAsync(File(name), bytes);
        var acknowledged = 200;
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            Assert.Contains(name, store.Recovery.IgnoredFiles);
            try
            {
                for (; acknowledged < 3_000; acknowledged += 200)
                {
                    await WriteAsync(Players(store), acknowledged, 200, "second");
                }
            }
            catch (StoreFaultedException)
            {
                // No shard id is left to roll to: the write fails, and the store must still open.
            }
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            var players = Players(store);
            Assert.All(Enumerable.Range(0, acknowledged), k => Assert.NotNull(players.Get(k)));
            Assert.Contains(name, store.Recovery.IgnoredFiles);
            Assert.Equal(bytes, await System.IO.File.ReadAllBytesAsync(File(name)));
        }
    }

    [Fact]
    public async Task GetCollection_AfterAFileWithACollectionIdAtTheEndOfTheRangeWasPutInTheFolder_GivesEachNewCollectionItsOwnId()
    {
        // New collections take ids past every collection id the folder's shard files use; one near the end of the range
        // must not give two collections one id (their records in one another's files, a manifest no open accepts).
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            await WriteAsync(Players(store), 0, 10, "first");
        }

        var planted = $"c{uint.MaxValue - 1:x8}-00000001.shard";
        await System.IO.File.WriteAllBytesAsync(File(planted), new byte[100]);
        var names = new[] { "a", "b", "c" };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            try
            {
                foreach (var name in names)
                {
                    await WriteAsync(Players(store, name), 0, 10, name);
                }
            }
            catch (InvalidOperationException)
            {
                // No collection id is left: the collection is refused, and the store must still open.
            }
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            Assert.Equal(10, Players(store).Count);
            foreach (var name in names.Where(n => store.CollectionNames.Contains(n)))
            {
                var collection = Players(store, name);
                Assert.Equal(10, collection.Count);
                Assert.All(Enumerable.Range(0, 10), k => Assert.StartsWith($"{name}-", collection.Get(k)!.Name, StringComparison.Ordinal));
            }
        }
    }

    [Fact]
    public async Task Open_WhenTheManifestIsOlderThanItsShards_KeepsNewerShardsAndNeverReusesTheirIds()
    {
        byte[] oldManifest;
        long kept;
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            await WriteAsync(Players(store), 0, 500, "first");
            oldManifest = await System.IO.File.ReadAllBytesAsync(File("MANIFEST"));
            await WriteAsync(Players(store), 500, 3_000, "second");
        }

        var newer = Directory.GetFiles(_dir.Path, "c00000001-*.shard").Select(Path.GetFileName).Order(StringComparer.Ordinal).Skip(1).ToArray();
        Assert.NotEmpty(newer);
        var contents = newer.ToDictionary(n => n!, n => System.IO.File.ReadAllBytes(File(n!)));
        await System.IO.File.WriteAllBytesAsync(File("MANIFEST"), oldManifest);

        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            Assert.All(newer, n => Assert.Contains(n, store.Recovery.IgnoredFiles));
            Assert.Empty(store.Recovery.RemovedFiles);
            // The old manifest's active shard kept filling after it was saved, so it may hold more than 500.
            var players = Players(store);
            kept = players.Count;
            Assert.InRange(kept, 500, 3_499);

            // Enough to roll several new shards: none may take the name of a file the old manifest does not know.
            await WriteAsync(players, 10_000, 3_000, "third");
            Assert.Equal(kept + 3_000, players.Count);
        }

        Assert.All(contents, c => Assert.Equal(c.Value, System.IO.File.ReadAllBytes(File(c.Key))));
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            var players = Players(store);
            Assert.Equal(kept + 3_000, players.Count);
            Assert.Equal($"third-10001-{new string('x', 60)}", players.Get(10_001)?.Name);
            Assert.Equal($"first-1-{new string('x', 60)}", players.Get(1)?.Name);
        }
    }

    [Fact]
    public async Task Open_WhenAListedShardIsMissing_RefusesAndDeletesNoUnlistedFile()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            var players = Players(store);
            await WriteAsync(players, 0, 2_000, "first");
            await WriteAsync(players, 0, 2_000, "second");
            await players.CompactAsync();
            await WriteAsync(Players(store, "guilds"), 0, 100, "guild");
        }

        // The compaction deleted shard 1 of the first collection; put back a file under its (handed-out, unlisted)
        // id, as a crash before that delete would have left it, and lose a listed shard of the second collection.
        var unlisted = File("c00000001-00000001.shard");
        await System.IO.File.WriteAllBytesAsync(unlisted, [1, 2, 3]);
        System.IO.File.Delete(File("c00000002-00000001.shard"));

        var error = await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenAsync(_dir.Path, Options));

        Assert.Contains("c00000002-00000001.shard", error.Message, StringComparison.Ordinal);
        Assert.True(System.IO.File.Exists(unlisted), "open deleted an unlisted file before it verified every listed shard");
    }

    [Fact]
    public async Task Open_WhenAListedShardIsMissing_RefusesAndCutsNoTornTailOfAnotherCollection()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            await WriteAsync(Players(store), 0, 100, "first");
            await WriteAsync(Players(store, "guilds"), 0, 100, "guild");
        }

        // What a crash in the middle of an append leaves at the end of the first collection's active shard, and a
        // listed shard of the second collection lost (a copy of the folder that missed it).
        var active = Directory.GetFiles(_dir.Path, "c00000001-*.shard").Order(StringComparer.Ordinal).Last();
        await using (var file = new FileStream(active, FileMode.Append))
        {
            await file.WriteAsync(new byte[] { 0x53, 0x54, 0x4c, 0x52, 9, 9, 9 });
        }

        var torn = await System.IO.File.ReadAllBytesAsync(active);
        var guilds = File("c00000002-00000001.shard");
        var lost = await System.IO.File.ReadAllBytesAsync(guilds);
        System.IO.File.Delete(guilds);

        await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenAsync(_dir.Path, Options));
        Assert.Equal(torn, await System.IO.File.ReadAllBytesAsync(active));

        // The lost file put back, the store opens, cutting the torn tail then.
        await System.IO.File.WriteAllBytesAsync(guilds, lost);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            Assert.Equal([Path.GetFileName(active)], store.Recovery.TruncatedShards.Select(Path.GetFileName));
            Assert.Equal(100, Players(store).Count);
            Assert.Equal(100, Players(store, "guilds").Count);
        }
    }
}
