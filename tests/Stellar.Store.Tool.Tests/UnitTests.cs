using System.Buffers.Binary;
using System.Text.Json;

namespace Stellar.Store.Tool.Tests;

/// <summary>Writes across collections: the tool counts a unit's records only when the store's unit log committed it.</summary>
public sealed class UnitTests
{
    [Fact]
    public async Task Export_OfACommittedWriteAcrossCollections_HoldsItsRecords()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await WriteUnitAsync(path);

        var players = await ToolRun.RunAsync("export", path, TestStores.Players);
        var guilds = await ToolRun.RunAsync("export", path, "guilds");

        Assert.Equal(6, Lines(players.Data).Length);
        Assert.Contains("\"Id\":6", players.Data, StringComparison.Ordinal);
        Assert.Equal(["{\"key\":\"red\",\"value\":{\"Name\":\"red\",\"Members\":6}}"], Lines(guilds.Data));
    }

    [Fact]
    public async Task Export_OfAWriteAcrossCollectionsWhoseDecisionIsTorn_LeavesItOutInEveryCollection()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await WriteUnitAsync(path);

        // Half of the unit log's last block, the unit's decision, as a crash before it reached the disk leaves it.
        var log = LastShard(path, "$units");
        using (var file = File.Open(log, FileMode.Open))
        {
            file.SetLength(file.Length - 8);
        }

        var players = await ToolRun.RunAsync("export", path, TestStores.Players);
        var guilds = await ToolRun.RunAsync("export", path, "guilds");
        var verify = await ToolRun.RunAsync("verify", path);

        Assert.Equal(5, Lines(players.Data).Length);
        Assert.DoesNotContain("\"Id\":6", players.Data, StringComparison.Ordinal);
        Assert.Empty(Lines(guilds.Data));
        Assert.Equal(0, verify.ExitCode);
        Assert.Contains($"TORN {log} offset", verify.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Salvage_WhenOnePartOfAWriteAcrossCollectionsIsLost_LeavesOutTheOtherPartsToo()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await WriteUnitAsync(path, guildAfter: true);

        // The guilds' shard holds the unit's part right after its 36-byte header, then guild "blue": flip a byte in
        // the part's first 20 bytes (no block is shorter).
        var guilds = LastShard(path, "guilds");
        TestStores.Damage(new WrittenRecord(new Player(), guilds, 36, 56));

        var run = await ToolRun.RunAsync("salvage", path, temp.Sub("new"));

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"LOST 'guilds': {guilds} offset 36", run.Output, StringComparison.Ordinal);
        var players = await TestStores.ReadPlayersAsync(temp.Sub("new"), encrypted: false);
        Assert.Equal(Enumerable.Range(1, 5), players.Keys.Order());
        Assert.Contains("'guilds': 1 record(s) copied.", run.Output, StringComparison.Ordinal);
    }

    /// <summary>
    /// Players 1 to 5 one by one, then player 6 and guild "red" in one write across collections, then guild "blue"
    /// alone when <paramref name="guildAfter"/> is set.
    /// </summary>
    private static async Task WriteUnitAsync(string path, bool guildAfter = false)
    {
        await using var store = await StellarStore.OpenAsync(path, TestStores.Options(encrypted: false));
        var players = store.GetCollection<int, Player>(TestStores.Players, p => p.Id);
        var guilds = store.GetCollection<string, Guild>("guilds", g => g.Name);
        for (var id = 1; id <= 5; id++)
        {
            await players.UpsertAsync(Player.Make(id));
        }

        await store.WriteAsync(b =>
        {
            b.In(players).Upsert(Player.Make(6));
            b.In(guilds).Upsert(new Guild { Name = "red", Members = 6 });
        });
        if (guildAfter)
        {
            await guilds.UpsertAsync(new Guild { Name = "blue", Members = 1 });
        }
    }

    /// <summary>A collection's last shard, found through the manifest (docs/format.md, "Manifest": a JSON body after 12 bytes).</summary>
    private static string LastShard(string path, string collection)
    {
        var manifest = File.ReadAllBytes(Path.Combine(path, "MANIFEST"));
        var body = manifest.AsSpan(12, BinaryPrimitives.ReadInt32LittleEndian(manifest.AsSpan(8)));
        using var json = JsonDocument.Parse(body.ToArray());
        var log = json.RootElement.GetProperty("Collections").EnumerateArray().Single(c => c.GetProperty("Name").GetString() == collection);
        var shard = log.GetProperty("Shards").EnumerateArray().Last().GetUInt32();
        return Path.Combine(path, $"c{log.GetProperty("Id").GetUInt32():x8}-{shard:x8}.shard");
    }

    private static string[] Lines(string data) => data.Split('\n', StringSplitOptions.RemoveEmptyEntries);
}
