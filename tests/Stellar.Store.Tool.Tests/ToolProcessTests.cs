namespace Stellar.Store.Tool.Tests;

/// <summary>The built tool, run as a program: its exit codes and output reach the shell that runs it.</summary>
public sealed class ToolProcessTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromMinutes(2);

    [Fact]
    public async Task TheProgram_VerifyingADamagedEncryptedStore_ExitsOneNamingTheBlock()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 8, encrypted: true);
        TestStores.Damage(written[2]);

        using var tool = ChildProcess.Start("Stellar.Store.Tool", "src/Tool",
            new Dictionary<string, string> { ["GAME_STORE_KEY"] = TestStores.KeyHex, ["COLUMNS"] = "4000" },
            "verify", path, "--key-env", "GAME_STORE_KEY");

        Assert.Equal(1, await tool.WaitForExitAsync(Timeout));
        Assert.Contains($"offset {written[2].Start}", tool.Output, StringComparison.Ordinal);
        Assert.Contains("7 good block(s)", tool.Output, StringComparison.Ordinal);
    }
}
