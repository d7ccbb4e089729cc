namespace Stellar.Store.Tool.Tests;

public sealed class CompactTests
{
    [Fact]
    public async Task Compact_OfAStoreOfOverwrites_ShrinksItsShardsAndKeepsEveryRecord()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var options = new StoreOptions { MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };
        var expected = new Dictionary<int, Player>();
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            var players = store.GetCollection<int, Player>(TestStores.Players, p => p.Id);
            for (var round = 0; round < 20; round++)
            {
                await players.WriteAsync(b =>
                {
                    for (var id = 1; id <= 100; id++)
                    {
                        var player = Player.Make(id) with { Level = round };
                        expected[id] = player;
                        b.Upsert(player);
                    }
                });
            }
        }

        var bytesBefore = ShardBytes(path);

        var run = await ToolRun.RunAsync("compact", path);

        Assert.Equal(0, run.ExitCode);
        Assert.True(ShardBytes(path) < bytesBefore / 4, $"{ShardBytes(path)} bytes after, {bytesBefore} before\n{run.Output}");
        Assert.Equal(expected, await TestStores.ReadPlayersAsync(path, encrypted: false));
    }

    [Fact]
    public async Task Compact_OfACollectionTheStoreLacks_NamesTheOnesItHas()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 2, encrypted: false);

        var run = await ToolRun.RunAsync("compact", path, "--collection", "guilds");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("The store has no collection 'guilds'. It has: players.", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Compact_OfACollectionTheStoreLacks_LeavesAStoreWithATornTailAsItWas()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 5, encrypted: false);

        // The torn tail that an open would cut: a request refused for its collection must not open the store.
        TestStores.TearTail(written[^1]);
        var before = TestStores.Snapshot(path);

        var run = await ToolRun.RunAsync("compact", path, "--collection", "guilds");

        Assert.Equal(2, run.ExitCode);
        Assert.Equal(before, TestStores.Snapshot(path));
    }

    private static long ShardBytes(string path) => Directory.GetFiles(path, "*.shard").Sum(f => new FileInfo(f).Length);
}
