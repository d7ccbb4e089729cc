using System.Globalization;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// Collections of one store on real files change the one manifest at once: eight start and roll shards together;
/// two roll and compact together, and one's replace fails while the other goes on. Checked against the test's own record of the
/// acknowledged writes and against the manifest file read without the store's parser.
/// </summary>
public sealed class ManifestConcurrencyTests : IDisposable
{
    private const int Keys = 150;

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static StoreOptions Options => new() { MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };

    [Fact]
    public async Task Collections_StartingAndRollingShardsAtTheSameTime_KeepEveryAcknowledgedWriteUnderItsCollection()
    {
        // Each collection starts its first shard at once and rolls a 64 KiB shard every few writes, so manifest
        // replaces of different collections overlap.
        var options = new StoreOptions { MaxShardBytes = 64 * 1024 };
        const int Collections = 8;
        var writes = Stress.Pick(300, 3000);
        var payload = new string('x', 4000);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var collections = Enumerable.Range(0, Collections).Select(c => store.GetCollection<int, Player>($"c{c}", p => p.Id)).ToArray();
            await Task.WhenAll(collections.Select((collection, c) => Task.Run(async () =>
            {
                for (var i = 0; i < writes; i++)
                {
                    await collection.InsertAsync(Expected(c, i, payload));
                }
            })));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            for (var c = 0; c < Collections; c++)
            {
                var players = store.GetCollection<int, Player>($"c{c}", p => p.Id);
                Assert.Equal(writes, players.Count);

                // Each collection's own values: a shard listed under the wrong collection would show here.
                Assert.All(Enumerable.Range(0, writes), i => Assert.Equal(Expected(c, i, payload), players.Get(i)));
            }

            Assert.Empty(store.Recovery.IgnoredFiles);
        }
    }

    [Fact]
    public async Task Collections_RollingAndCompactingAtTheSameTime_KeepEveryAcknowledgedWriteAndListEachShardOnce()
    {
        string[] names = ["a", "b"];
        var rounds = Stress.Pick(4, 30);
        var expected = names.ToDictionary(n => n, _ => new Dictionary<int, string>());
        var compactions = names.ToDictionary(n => n, _ => 0);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            var collections = names.ToDictionary(n => n, n => store.GetCollection<int, Player>(n, p => p.Id));
            var writing = names.Select(name => Task.Run(async () =>
            {
                for (var round = 0; round < rounds; round++)
                {
                    for (var k = 0; k < Keys; k++)
                    {
                        var value = Value(name, k, round);
                        await collections[name].UpsertAsync(new Player(k, value, round, k));
                        expected[name][k] = value;
                    }
                }
            })).ToArray();
            var done = Task.WhenAll(writing);
            var compacting = names.Select(name => Task.Run(async () =>
            {
                // At least one compaction each, however fast the writers are.
                do
                {
                    await collections[name].CompactAsync();
                    compactions[name]++;
                }
                while (!done.IsCompleted);
            })).ToArray();
            await Task.WhenAll(writing.Concat(compacting));

            Assert.All(names, n => Assert.All(expected[n], e => Assert.Equal(e.Value, collections[n].Get(e.Key)?.Name)));
        }

        await using (var reopened = await StellarStore.OpenAsync(_dir.Path, Options))
        {
            foreach (var name in names)
            {
                var collection = reopened.GetCollection<int, Player>(name, p => p.Id);
                Assert.Equal(Keys, collection.Count);
                Assert.All(expected[name], e => Assert.Equal(e.Value, collection.Get(e.Key)?.Name));
            }

            Assert.Empty(reopened.Recovery.IgnoredFiles);
            Assert.Empty(reopened.Recovery.RemovedFiles);
        }

        // Every shard listed once, under its own collection, with an id that was handed out; and every shard file
        // on disk is one the manifest lists (the compacted ones were deleted at close).
        var (_, chains) = ManifestOnDisk.Read(_dir.Path);
        Assert.Equal(names.Length, chains.Values.Select(c => c.Id).Distinct().Count());
        var listed = new HashSet<string>(StringComparer.Ordinal);
        foreach (var chain in chains.Values)
        {
            Assert.Equal(chain.Shards.Length, chain.Shards.Distinct().Count());
            Assert.All(chain.Shards, s => Assert.InRange(s, 1u, chain.NextShardId - 1));
            listed.UnionWith(chain.Shards.Select(s => string.Create(CultureInfo.InvariantCulture, $"c{chain.Id:x8}-{s:x8}.shard")));
        }

        Assert.Equal(listed.Order(StringComparer.Ordinal), Directory.GetFiles(_dir.Path, "*.shard").Select(Path.GetFileName).Order(StringComparer.Ordinal));
        Assert.All(compactions.Values, count => Assert.True(count > 0));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Roll_WhenOneCollectionsManifestReplaceFails_FaultsOnlyThatCollectionAndTheOtherListsItsShard(bool afterEffect)
    {
        var faults = new FaultInjectingStorage(new FileStorage(_dir.Path)) { Timing = afterEffect ? FaultTiming.AfterEffect : FaultTiming.BeforeEffect };
        var acknowledged = new Dictionary<string, Dictionary<int, string>> { ["a"] = new(), ["b"] = new() };
        (int Key, string Value)? uncertain = null;
        var store = await StellarStore.OpenAsync(faults, Options);
        try
        {
            var a = store.GetCollection<int, Player>("a", p => p.Id);
            var b = store.GetCollection<int, Player>("b", p => p.Id);
            await Write(a, "a", acknowledged["a"], 0, 5);
            await Write(b, "b", acknowledged["b"], 0, 5);

            // The next manifest replace is a's roll to its second shard.
            faults.FailReplaceAt = faults.ReplaceCount + 1;
            for (var k = 5; uncertain is null; k++)
            {
                Assert.True(k < 1_000, "a's writes never rolled a shard");
                var value = Value("a", k, 0);
                try
                {
                    await a.InsertAsync(new Player(k, value, 0, k));
                    acknowledged["a"][k] = value;
                }
                catch (StoreFaultedException)
                {
                    uncertain = (k, value);
                }
            }

            Assert.Equal(1, afterEffect ? faults.FaultsAfterEffect : faults.FaultsBeforeEffect);
            await Assert.ThrowsAsync<StoreFaultedException>(() => a.UpsertAsync(new Player(0, "refused", 0, 0)));

            // b goes on, rolling shards of its own: its replaces write a's change too.
            await Write(b, "b", acknowledged["b"], 5, 100);
        }
        finally
        {
            await store.DisposeAsync();
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, Options);
        foreach (var (name, values) in acknowledged)
        {
            var collection = reopened.GetCollection<int, Player>(name, p => p.Id);
            Assert.All(values, e => Assert.Equal(e.Value, collection.Get(e.Key)?.Name));
            if (name == "a")
            {
                var (key, value) = uncertain!.Value;
                Assert.True(collection.Get(key) is null || collection.Get(key)!.Name == value, "the uncertain write is there whole or not at all");
                Assert.InRange(collection.Count, values.Count, values.Count + 1);
            }
            else
            {
                Assert.Equal(values.Count, collection.Count);
            }
        }

        // a's new shard is listed whether or not its own replace reached the disk: undone in memory, it would be an
        // unlisted file here, removed at open.
        Assert.Empty(reopened.Recovery.RemovedFiles);
        Assert.Empty(reopened.Recovery.IgnoredFiles);
        Assert.Equal(2, ManifestOnDisk.Read(_dir.Path).Collections["a"].Shards.Length);
    }

    private static async Task Write(Collection<int, Player> collection, string name, Dictionary<int, string> acknowledged, int from, int to)
    {
        for (var k = from; k < to; k++)
        {
            var value = Value(name, k, 0);
            await collection.InsertAsync(new Player(k, value, 0, k));
            acknowledged[k] = value;
        }
    }

    private static string Value(string collection, int key, int round) =>
        string.Create(CultureInfo.InvariantCulture, $"{collection}-{key}-{round}-") + new string((char)('a' + (key % 26)), 2_000);

    private static Player Expected(int collection, int i, string payload) => new(i, $"c{collection}-{i}-{payload}", collection, i);
}
