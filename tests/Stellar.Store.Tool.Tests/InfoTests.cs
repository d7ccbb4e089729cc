namespace Stellar.Store.Tool.Tests;

public sealed class InfoTests
{
    [Fact]
    public async Task Info_OnASoundStore_ShowsCollectionTypesRecordsAndFormat()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 25, encrypted: false);
        var before = TestStores.Snapshot(path);

        var run = await ToolRun.RunAsync("info", path);

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("Format       5", run.Output, StringComparison.Ordinal);
        Assert.Contains("Encryption   none", run.Output, StringComparison.Ordinal);
        Assert.Matches(@"players\s*│\s*System\.Int32 -> Stellar\.Store\.Tool\.Tests\.Player\s*│\s*25\s*│\s*1\s*│", run.Output);
        Assert.Equal(before, TestStores.Snapshot(path));
    }

    [Fact]
    public async Task Info_OnAnEncryptedStore_WithItsKey_ShowsTheEncryptionAndRecords()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 10, encrypted: true);

        var run = await ToolRun.RunWithKeyAsync("info", path);

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("AES-256-GCM, 32-byte key", run.Output, StringComparison.Ordinal);
        Assert.Matches(@"players\s*│[^│]*│\s*10\s*│", run.Output);
    }

    [Fact]
    public async Task Info_WhenTheStoreIsDamaged_SaysSoAndExitsOne()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 10, encrypted: false);
        TestStores.Damage(written[4]);

        var run = await ToolRun.RunAsync("info", path);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("The store is damaged", run.Output, StringComparison.Ordinal);
        Assert.Matches(@"players\s*│[^│]*│\s*9\s*│", run.Output);
    }

    [Fact]
    public async Task Info_OnADirectoryThatIsNotAStore_ExitsWithAClearMessage()
    {
        using var temp = new TempDirectory();

        var run = await ToolRun.RunAsync("info", temp.Path);

        Assert.Equal(3, run.ExitCode);
        Assert.Contains("is not a store's directory", run.Output, StringComparison.Ordinal);
        run.AssertNoStackTrace();
        Assert.Empty(Directory.GetFileSystemEntries(temp.Path));
    }
}
