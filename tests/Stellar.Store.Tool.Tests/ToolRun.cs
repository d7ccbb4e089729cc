using Spectre.Console.Testing;

namespace Stellar.Store.Tool.Tests;

/// <summary>One run of the tool's entry point in this process: its exit code, what it printed, and the data it wrote.</summary>
internal sealed record ToolRun(int ExitCode, string Output, string Data)
{
    /// <summary>Runs the tool with <paramref name="args"/> and the environment variables in <paramref name="environment"/> only.</summary>
    public static async Task<ToolRun> RunAsync(IReadOnlyDictionary<string, string>? environment, CancellationToken cancellationToken, params string[] args)
    {
        using var console = new TestConsole().Width(4000);
        using var data = new StringWriter();
        var variables = environment ?? new Dictionary<string, string>();
        var code = await Program.RunAsync(args, new ToolContext(console, data, name => variables.GetValueOrDefault(name)), cancellationToken);
        return new ToolRun(code, console.Output, data.ToString());
    }

    public static Task<ToolRun> RunAsync(params string[] args) => RunAsync(null, CancellationToken.None, args);

    /// <summary>Runs the tool on an encrypted store, its key in an environment variable.</summary>
    public static Task<ToolRun> RunWithKeyAsync(params string[] args) =>
        RunAsync(new Dictionary<string, string> { ["GAME_STORE_KEY"] = TestStores.KeyHex }, CancellationToken.None, [.. args, "--key-env", "GAME_STORE_KEY"]);

    /// <summary>No stack trace reached the user.</summary>
    public void AssertNoStackTrace() => Assert.DoesNotContain("   at ", Output, StringComparison.Ordinal);
}
