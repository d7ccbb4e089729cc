using System.Diagnostics;
using System.Net;
using System.Text;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// The sample running as a child process (<c>dotnet Stellar.Store.GameServer.dll ...</c>), with its output
/// collected as it comes, bounded waits, and a kill on dispose so a failing test never leaves a child behind.
/// </summary>
internal sealed class GameServerProcess : IDisposable
{
    private const string AssemblyName = "Stellar.Store.GameServer";
    private const string TargetFramework = "net10.0";
    private const string ListeningPrefix = "listening on ";
    private static readonly TimeSpan ExitTimeout = TimeSpan.FromSeconds(30);

    private readonly Process _process;
    private readonly StringBuilder _output = new();
    private readonly TaskCompletionSource<IPEndPoint> _listening = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private GameServerProcess(Process process)
    {
        _process = process;
        _process.OutputDataReceived += (_, e) => OnLine(e.Data);
        _process.ErrorDataReceived += (_, e) => OnLine(e.Data);
        _process.Exited += (_, _) => _listening.TrySetException(new InvalidOperationException($"{AssemblyName} exited early. Output: {Output}"));
        _process.EnableRaisingEvents = true;
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
    }

    /// <summary>Everything the child printed so far (standard output and error).</summary>
    public string Output
    {
        get
        {
            lock (_output)
            {
                return _output.ToString();
            }
        }
    }

    public static GameServerProcess Start(params string[] arguments)
    {
        var start = new ProcessStartInfo(DotnetHost())
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(FindAssembly());
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {AssemblyName}.");
        return new GameServerProcess(process);
    }

    /// <summary>The endpoint from the child's <c>listening on ADDRESS:PORT</c> line; fails if it does not come in time.</summary>
    public async Task<IPEndPoint> WaitUntilListeningAsync(TimeSpan timeout)
    {
        try
        {
            return await _listening.Task.WaitAsync(timeout);
        }
        catch (TimeoutException)
        {
            throw new TimeoutException($"{AssemblyName} did not print '{ListeningPrefix}...' within {timeout}. Output: {Output}");
        }
    }

    /// <summary>Kills the child (SIGKILL on Unix) and waits until it is gone.</summary>
    public void Kill()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
        }

        if (!_process.WaitForExit(ExitTimeout))
        {
            throw new TimeoutException($"{AssemblyName} (pid {_process.Id}) did not exit within {ExitTimeout} of being killed.");
        }
    }

    public void Dispose()
    {
        try
        {
            Kill();
        }
        finally
        {
            _process.Dispose();
        }
    }

    private void OnLine(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_output)
        {
            _output.AppendLine(line);
        }

        if (line.StartsWith(ListeningPrefix, StringComparison.Ordinal))
        {
            _listening.TrySetResult(IPEndPoint.Parse(line[ListeningPrefix.Length..]));
        }
    }

    private static string DotnetHost()
    {
        // The test runner itself usually runs under the dotnet host; otherwise the SDK tells its children where it is.
        var current = Environment.ProcessPath;
        if (current is not null && Path.GetFileNameWithoutExtension(current) == "dotnet")
        {
            return current;
        }

        return Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host ? host : "dotnet";
    }

    /// <summary>
    /// The sample's assembly: next to the tests when its runtime config was copied too, else in the sample's own
    /// output, found by mirroring this assembly's <c>tests/&lt;project&gt;/bin/&lt;configuration&gt;/&lt;framework&gt;/</c>.
    /// </summary>
    private static string FindAssembly()
    {
        var fileName = AssemblyName + ".dll";
        var beside = Path.Combine(AppContext.BaseDirectory, fileName);
        if (File.Exists(beside) && File.Exists(Path.ChangeExtension(beside, ".runtimeconfig.json")))
        {
            return beside;
        }

        var frameworkDirectory = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        var configuration = frameworkDirectory.Parent?.Name;
        var repository = frameworkDirectory.Parent?.Parent?.Parent?.Parent?.Parent;
        if (configuration is not null && repository is not null)
        {
            var mirrored = Path.Combine(repository.FullName, "samples", "GameServer", "bin", configuration, TargetFramework, fileName);
            if (File.Exists(mirrored))
            {
                return mirrored;
            }

            throw new FileNotFoundException($"{fileName} is neither at '{beside}' nor at '{mirrored}'; build the tests first.", fileName);
        }

        throw new FileNotFoundException($"{fileName} is not at '{beside}'; build the tests first.", fileName);
    }
}
