using Spectre.Console.Testing;

namespace Stellar.Store.Tool.Tests;

public sealed class SecretsTests
{
    [Fact]
    public async Task AKey_FromAFile_OpensTheStore()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 3, encrypted: true);
        var keyFile = temp.Sub("store.key");
        File.WriteAllBytes(keyFile, Convert.FromHexString(TestStores.KeyHex));

        var run = await ToolRun.RunAsync("verify", path, "--key-file", keyFile);

        Assert.Equal(0, run.ExitCode);
    }

    [Fact]
    public async Task APassphrase_FromAPrompt_OpensTheStore()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await using (var store = await StellarStore.OpenAsync(path, new StoreOptions { EncryptionPassphrase = "correct horse", PassphraseIterations = StoreOptions.MinPassphraseIterations }))
        {
            await store.GetCollection<int, Player>(TestStores.Players, p => p.Id).UpsertAsync(Player.Make(1));
        }

        using var console = new TestConsole().Width(4000).Interactive();
        console.Input.PushTextWithEnter("correct horse");
        var code = await Program.RunAsync(["info", path, "--ask-passphrase"], new ToolContext(console, TextWriter.Null, _ => null));

        Assert.Equal(0, code);
        Assert.Contains("passphrase (pbkdf2-sha256)", console.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AskPassphrase_WithoutATerminal_ExitsWithBadInputNamingTheOtherSources()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 1, encrypted: true);

        // What a script or a redirected standard input gives: no terminal to prompt on.
        using var console = new TestConsole().Width(4000);
        console.Profile.Capabilities.Interactive = false;
        var code = await Program.RunAsync(["info", path, "--ask-passphrase"], new ToolContext(console, TextWriter.Null, _ => null));

        Assert.Equal(2, code);
        Assert.Contains("--passphrase-file", console.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", console.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AKey_OnTheCommandLine_IsNotAnOption()
    {
        var run = await ToolRun.RunAsync("verify", "somewhere", "--key", TestStores.KeyHex);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("--key", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TwoSources_OfTheKey_AreRefused()
    {
        using var temp = new TempDirectory();
        var env = new Dictionary<string, string> { ["K"] = TestStores.KeyHex, ["P"] = "x" };

        var run = await ToolRun.RunAsync(env, CancellationToken.None, "verify", temp.Path, "--key-env", "K", "--passphrase-env", "P");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("not several", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AKey_ThatIsNot32Bytes_IsRefusedWithWhatAKeyIs()
    {
        using var temp = new TempDirectory();
        var env = new Dictionary<string, string> { ["K"] = "abcd" };

        var run = await ToolRun.RunAsync(env, CancellationToken.None, "verify", temp.Path, "--key-env", "K");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("does not hold a 32-byte key", run.Output, StringComparison.Ordinal);
    }
}
