namespace Stellar.Store.Tool.Tests;

public sealed class CommandLineTests
{
    [Fact]
    public async Task Help_ListsEveryVerbUnderTheToolsName()
    {
        var run = await ToolRun.RunAsync("--help");

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("stellar [command] [options]", run.Data, StringComparison.Ordinal);
        foreach (var verb in new[] { "info", "verify", "export", "import", "salvage", "compact" })
        {
            Assert.Contains($"  {verb} <store>", run.Data, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task AnUnknownVerb_IsExitCodeTwoWithWhereToLook()
    {
        var run = await ToolRun.RunAsync("repair", "somewhere");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("'repair'", run.Output, StringComparison.Ordinal);
        Assert.Contains("stellar --help", run.Output, StringComparison.Ordinal);
    }
}
