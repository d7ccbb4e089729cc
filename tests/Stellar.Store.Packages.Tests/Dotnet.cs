namespace Stellar.Store.Packages.Tests;

/// <summary>Runs the .NET SDK's <c>dotnet</c> command to its end; a command that fails or hangs fails the test.</summary>
internal static class Dotnet
{
    private static readonly TimeSpan CommandTimeout = TimeSpan.FromMinutes(10);

    // No first-run banner or telemetry in the output the failures quote.
    private static readonly Dictionary<string, string> Environment = new()
    {
        ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
        ["DOTNET_NOLOGO"] = "1",
        ["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1",
    };

    /// <summary>
    /// Runs <c>dotnet</c> with <paramref name="arguments"/> in <paramref name="workingDirectory"/> and returns what it
    /// printed; fails, quoting that output, if it exits with anything but 0.
    /// </summary>
    public static async Task<string> RunAsync(string workingDirectory, params string[] arguments)
    {
        using var command = ChildProcess.StartDotnet(workingDirectory, Environment, arguments);
        var exitCode = await command.WaitForExitAsync(CommandTimeout);
        Assert.True(exitCode == 0, $"'dotnet {string.Join(' ', arguments)}' exited with code {exitCode}:\n{command.Output}");
        return command.Output;
    }
}
