namespace Stellar.Store.Tool.Tests;

public sealed class CheckpointTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task CreateListRestoreDelete_RunEndToEnd_AndTheRestoredStoreHoldsThePlayersOfTheCheckpoint(bool encrypted)
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 20, encrypted);
        var expected = written.ToDictionary(w => w.Player.Id, w => w.Player);
        Task<ToolRun> Run(params string[] args) => encrypted ? ToolRun.RunWithKeyAsync(args) : ToolRun.RunAsync(args);

        var create = await Run("checkpoint", "create", path, "before-wipe");
        Assert.True(create.ExitCode == 0, create.Output);

        // Changed after the checkpoint: the restored store must not have it.
        await using (var store = await StellarStore.OpenAsync(path, TestStores.Options(encrypted)))
        {
            var players = store.GetCollection<int, Player>(TestStores.Players, p => p.Id);
            await players.DeleteAsync(1);
            await players.UpsertAsync(Player.Make(2) with { Level = 99 });
        }

        var list = await ToolRun.RunAsync("checkpoint", "list", path);
        Assert.Equal(0, list.ExitCode);
        Assert.Contains("before-wipe", list.Output, StringComparison.Ordinal);
        Assert.Contains("1 checkpoint(s)", list.Output, StringComparison.Ordinal);

        var restore = await ToolRun.RunAsync("checkpoint", "restore", path, "before-wipe", temp.Sub("restored"));
        Assert.True(restore.ExitCode == 0, restore.Output);
        Assert.Equal(expected, await TestStores.ReadPlayersAsync(temp.Sub("restored"), encrypted));

        var delete = await Run("checkpoint", "delete", path, "before-wipe");
        Assert.True(delete.ExitCode == 0, delete.Output);
        Assert.Contains("0 checkpoint(s)", (await ToolRun.RunAsync("checkpoint", "list", path)).Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BadRequests_ExitWithBadInput_AndSayWhy()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 2, encrypted: false);

        var missing = await ToolRun.RunAsync("checkpoint", "restore", path, "nope", temp.Sub("restored"));
        Assert.Equal(2, missing.ExitCode);
        Assert.Contains("no checkpoint 'nope'", missing.Output, StringComparison.Ordinal);
        missing.AssertNoStackTrace();

        var badName = await ToolRun.RunAsync("checkpoint", "create", path, "../out");
        Assert.Equal(2, badName.ExitCode);
        Assert.Contains("Invalid checkpoint name", badName.Output, StringComparison.Ordinal);

        Assert.Equal(0, (await ToolRun.RunAsync("checkpoint", "create", path, "c")).ExitCode);
        var twice = await ToolRun.RunAsync("checkpoint", "create", path, "c");
        Assert.Equal(2, twice.ExitCode);
        Assert.Contains("already", twice.Output, StringComparison.Ordinal);

        Directory.CreateDirectory(temp.Sub("full"));
        await File.WriteAllTextAsync(Path.Combine(temp.Sub("full"), "x"), "taken");
        var notEmpty = await ToolRun.RunAsync("checkpoint", "restore", path, "c", temp.Sub("full"));
        Assert.Equal(2, notEmpty.ExitCode);
        Assert.Contains("not empty", notEmpty.Output, StringComparison.Ordinal);

        var notThere = await ToolRun.RunAsync("checkpoint", "delete", path, "gone");
        Assert.Equal(2, notThere.ExitCode);

        // A name that is a path, or a name the store keeps for its own work, never resolves to a directory.
        foreach (var notAName in new[] { "..", ".", "c.partial" })
        {
            var restore = await ToolRun.RunAsync("checkpoint", "restore", path, notAName, temp.Sub("restored"));
            Assert.Equal(2, restore.ExitCode);
            Assert.Contains("is not a checkpoint's name", restore.Output, StringComparison.Ordinal);
            restore.AssertNoStackTrace();
        }

        Assert.False(Directory.Exists(temp.Sub("restored")));
    }

    [Theory]
    [InlineData("create", "../out")]
    [InlineData("delete", "gone")]
    [InlineData("delete", "..")]
    public async Task RefusedRequests_OnAStoreWithATornTail_LeaveEveryFileAsItWas(string verb, string name)
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 5, encrypted: false);

        // The torn tail that an open would cut: a request refused for its name must not open the store.
        TestStores.TearTail(written[^1]);
        var before = TestStores.Snapshot(path);

        var run = await ToolRun.RunAsync("checkpoint", verb, path, name);

        Assert.Equal(2, run.ExitCode);
        run.AssertNoStackTrace();
        Assert.Equal(before, TestStores.Snapshot(path));
    }

    [Fact]
    public async Task Restore_IntoADirectoryInsideTheStore_IsRefusedAndCreatesNothingThere()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 2, encrypted: false);
        Assert.Equal(0, (await ToolRun.RunAsync("checkpoint", "create", path, "c")).ExitCode);
        var entries = Directory.GetFileSystemEntries(path, "*", SearchOption.AllDirectories).Order().ToList();

        var run = await ToolRun.RunAsync("checkpoint", "restore", path, "c", Path.Combine(path, "restored"));

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("another directory", run.Output, StringComparison.Ordinal);
        run.AssertNoStackTrace();
        Assert.Equal(entries, Directory.GetFileSystemEntries(path, "*", SearchOption.AllDirectories).Order());
    }

    [Fact]
    public async Task EveryVerb_OnAMissingDirectoryOrOneThatIsNotAStore_FailsAsTheExitCodesSay_AndCreatesNothing()
    {
        using var temp = new TempDirectory();
        var missing = temp.Sub("no-such-store");
        var empty = temp.Sub("empty");
        Directory.CreateDirectory(empty);

        string[][] verbs = [["checkpoint", "list"], ["checkpoint", "create", "{0}", "c"], ["checkpoint", "delete", "{0}", "c"], ["checkpoint", "restore", "{0}", "c", temp.Sub("restored")]];
        foreach (var verb in verbs)
        {
            foreach (var (directory, code) in new[] { (missing, 2), (empty, 3) })
            {
                var arguments = verb.Length == 2 ? [.. verb, directory] : verb.Select(a => a == "{0}" ? directory : a).ToArray();
                var run = await ToolRun.RunAsync(arguments);
                Assert.True(code == run.ExitCode, $"'{string.Join(' ', verb[..2])}' on {Path.GetFileName(directory)}: exit {run.ExitCode}: {run.Output}");
                run.AssertNoStackTrace();
            }
        }

        Assert.False(Directory.Exists(missing));
        Assert.Empty(Directory.EnumerateFileSystemEntries(empty));
        Assert.False(Directory.Exists(temp.Sub("restored")));
    }
}
