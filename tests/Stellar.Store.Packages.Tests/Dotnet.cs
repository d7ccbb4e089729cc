namespace Stellar.Store.Packages.Tests;

/// <summary>Runs the .NET SDK's <c>dotnet</c> command to its end; a command that fails or hangs fails the test.</summary>
internal static class Dotnet
{
    private static readonly TimeSpan CommandTimeout = TimeSpan.FromMinutes(10);

    // A restore asks the package registry (versions, vulnerability data); a registry that fails one request for a
    // moment fails the restore, at times without saying why (MSB4181). Later attempts wait longer.
    private static readonly TimeSpan[] RestoreRetryDelays = [TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(20)];

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
        var (exitCode, output) = await TryRunAsync(workingDirectory, arguments);
        Assert.True(exitCode == 0, $"'dotnet {string.Join(' ', arguments)}' exited with code {exitCode}:\n{output}");
        return output;
    }

    /// <summary>
    /// Runs <c>dotnet restore</c> with <paramref name="arguments"/> in <paramref name="workingDirectory"/>, again after
    /// a pause if it fails, so that a registry's passing failure does not fail the test; fails, quoting the output of
    /// every attempt, if the last one fails too. The command that follows it is then run with <c>--no-restore</c>.
    /// </summary>
    public static async Task RestoreAsync(string workingDirectory, params string[] arguments)
    {
        string[] command = ["restore", .. arguments];
        var failures = new List<string>();
        for (var attempt = 0; ; attempt++)
        {
            var (exitCode, output) = await TryRunAsync(workingDirectory, command);
            if (exitCode == 0)
            {
                return;
            }

            failures.Add($"attempt {attempt + 1} exited with code {exitCode}:\n{output}");
            if (attempt == RestoreRetryDelays.Length)
            {
                Assert.Fail($"'dotnet {string.Join(' ', command)}' failed {failures.Count} times:\n{string.Join('\n', failures)}");
            }

            await Task.Delay(RestoreRetryDelays[attempt]);
        }
    }

    private static async Task<(int ExitCode, string Output)> TryRunAsync(string workingDirectory, string[] arguments)
    {
        using var command = ChildProcess.StartDotnet(workingDirectory, Environment, arguments);
        var exitCode = await command.WaitForExitAsync(CommandTimeout);
        return (exitCode, command.Output);
    }
}
