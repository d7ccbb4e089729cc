namespace Stellar.Store.Tool.Tests;

public sealed class SalvageTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Salvage_OfADamagedStore_CopiesEveryIntactRecordAndReportsTheLostBlocks(bool encrypted)
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("damaged");
        var written = await TestStores.WritePlayersAsync(path, 30, encrypted);
        TestStores.Damage(written[0]);
        TestStores.Damage(written[16]);
        TestStores.Damage(written[29]);
        var before = TestStores.Snapshot(path);

        var run = encrypted
            ? await ToolRun.RunWithKeyAsync("salvage", path, temp.Sub("new"))
            : await ToolRun.RunAsync("salvage", path, temp.Sub("new"));

        Assert.Equal(1, run.ExitCode);
        foreach (var lost in new[] { written[0], written[16] })
        {
            Assert.Contains($"LOST 'players': {lost.ShardFile} offset {lost.Start}, {lost.End - lost.Start} bytes (1 record(s) by its header)", run.Output, StringComparison.Ordinal);
        }

        // The last block of the active shard, damaged, reads as a torn tail: what an open would cut.
        Assert.Contains($"torn tail 'players': {written[29].ShardFile} offset {written[29].Start}", run.Output, StringComparison.Ordinal);
        Assert.Contains("'players': 27 record(s) copied.", run.Output, StringComparison.Ordinal);
        var intact = written.Where((_, i) => i is not (0 or 16 or 29)).Select(w => w.Player).ToDictionary(p => p.Id);
        Assert.Equal(intact, await TestStores.ReadPlayersAsync(temp.Sub("new"), encrypted));
        Assert.Equal(before, TestStores.Snapshot(path));
    }

    [Fact]
    public async Task Salvage_OfASoundStore_CopiesEverythingAndExitsZero()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("sound");
        var written = await TestStores.WritePlayersAsync(path, 12, encrypted: false);

        var run = await ToolRun.RunAsync("salvage", path, temp.Sub("new"));

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("Nothing was lost.", run.Output, StringComparison.Ordinal);
        Assert.Equal(written.Select(w => w.Player).ToDictionary(p => p.Id), await TestStores.ReadPlayersAsync(temp.Sub("new"), encrypted: false));
    }

    [Fact]
    public async Task Salvage_IntoADirectoryThatIsNotEmpty_IsRefused()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("damaged");
        await TestStores.WritePlayersAsync(path, 3, encrypted: false);
        Directory.CreateDirectory(temp.Sub("new"));
        File.WriteAllText(Path.Combine(temp.Sub("new"), "keep.txt"), "mine");

        var run = await ToolRun.RunAsync("salvage", path, temp.Sub("new"));

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("is not empty", run.Output, StringComparison.Ordinal);
        Assert.Equal(["keep.txt"], Directory.GetFileSystemEntries(temp.Sub("new")).Select(Path.GetFileName));
    }

    [Fact]
    public async Task Salvage_IntoAPathThatIsAFile_ExitsWithBadInputAndKeepsTheFile()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 2, encrypted: false);
        await File.WriteAllTextAsync(temp.Sub("new"), "taken");

        var run = await ToolRun.RunAsync("salvage", path, temp.Sub("new"));

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("is a file", run.Output, StringComparison.Ordinal);
        run.AssertNoStackTrace();
        Assert.Equal("taken", await File.ReadAllTextAsync(temp.Sub("new")));
    }

    [Fact]
    public async Task Salvage_IntoADirectoryInsideTheDamagedStore_IsRefusedAndCreatesNothingThere()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 2, encrypted: false);
        var entries = Directory.GetFileSystemEntries(path, "*", SearchOption.AllDirectories).Order().ToList();

        var run = await ToolRun.RunAsync("salvage", path, Path.Combine(path, "rescued"));

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("another directory", run.Output, StringComparison.Ordinal);
        Assert.Equal(entries, Directory.GetFileSystemEntries(path, "*", SearchOption.AllDirectories).Order());
    }
}
