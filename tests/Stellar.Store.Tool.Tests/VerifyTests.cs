namespace Stellar.Store.Tool.Tests;

public sealed class VerifyTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Verify_OnASoundStore_ExitsZero(bool encrypted)
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 20, encrypted);

        var run = encrypted ? await ToolRun.RunWithKeyAsync("verify", path) : await ToolRun.RunAsync("verify", path);

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("20 good block(s) holding 20 record(s), 0 bad block(s)", run.Output, StringComparison.Ordinal);
        Assert.Contains("The store is sound.", run.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Verify_WhenBlocksAreFlipped_ReportsEachWithFileAndOffsetAndExitsOne(bool encrypted)
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 20, encrypted);
        TestStores.Damage(written[3]);
        TestStores.Damage(written[11]);
        var before = TestStores.Snapshot(path);

        var run = encrypted ? await ToolRun.RunWithKeyAsync("verify", path) : await ToolRun.RunAsync("verify", path);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"BAD  {written[3].ShardFile} offset {written[3].Start}: ", run.Output, StringComparison.Ordinal);
        Assert.Contains($"BAD  {written[11].ShardFile} offset {written[11].Start}: ", run.Output, StringComparison.Ordinal);
        Assert.Contains("18 good block(s) holding 18 record(s), 2 bad block(s)", run.Output, StringComparison.Ordinal);
        Assert.Equal(before, TestStores.Snapshot(path));
    }

    [Fact]
    public async Task Verify_WhenTheActiveShardEndsTorn_ReportsTheTailAndCutsNothing()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 5, encrypted: false);
        var shard = written[^1].ShardFile;

        // Half of the last block written again after it: what a crash in the middle of an append leaves.
        var last = File.ReadAllBytes(shard)[(int)written[^1].Start..(int)written[^1].End];
        using (var file = File.Open(shard, FileMode.Append))
        {
            file.Write(last, 0, last.Length / 2);
        }

        var before = TestStores.Snapshot(path);

        var run = await ToolRun.RunAsync("verify", path);

        Assert.Equal(0, run.ExitCode);
        Assert.Contains($"TORN {shard} offset {written[^1].End}: {last.Length / 2} bytes", run.Output, StringComparison.Ordinal);
        Assert.Equal(before, TestStores.Snapshot(path));
    }

    [Fact]
    public async Task Verify_WhenTheManifestIsDamaged_NamesItAndExitsOne()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 3, encrypted: false);
        var manifest = Path.Combine(path, "MANIFEST");
        var bytes = File.ReadAllBytes(manifest);
        bytes[20] ^= 0xFF;
        File.WriteAllBytes(manifest, bytes);

        var run = await ToolRun.RunAsync("verify", path);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"Store file '{manifest}' is damaged: manifest checksum mismatch", run.Output, StringComparison.Ordinal);
        run.AssertNoStackTrace();
    }

    [Fact]
    public async Task Verify_WithAWrongKey_ExitsThreeWithAClearMessage()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 3, encrypted: true);
        var wrong = new Dictionary<string, string> { ["K"] = new string('0', 64) };

        var run = await ToolRun.RunAsync(wrong, CancellationToken.None, "verify", path, "--key-env", "K");

        Assert.Equal(3, run.ExitCode);
        Assert.Contains("Wrong key or passphrase", run.Output, StringComparison.Ordinal);
        run.AssertNoStackTrace();
    }

    [Fact]
    public async Task Verify_OnAnEncryptedStoreWithoutAKey_SaysAKeyIsNeeded()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 3, encrypted: true);

        var run = await ToolRun.RunAsync("verify", path);

        Assert.Equal(3, run.ExitCode);
        Assert.Contains("encrypted with a key, and none was given", run.Output, StringComparison.Ordinal);
        run.AssertNoStackTrace();
    }

    [Fact]
    public async Task Verify_WhileTheStoreIsOpen_RefusesAndSaysWhy()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 3, encrypted: false);
        await using var open = await StellarStore.OpenAsync(path, TestStores.Options(encrypted: false));

        var run = await ToolRun.RunAsync("verify", path);

        Assert.Equal(3, run.ExitCode);
        Assert.Contains("Stop the program that has it open", run.Output, StringComparison.Ordinal);
    }
}
