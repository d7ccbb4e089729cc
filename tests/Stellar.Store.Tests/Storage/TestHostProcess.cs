using System.Diagnostics;
using System.Text;

namespace Stellar.Store.Tests.Storage;

/// <summary>
/// A running Stellar.Store.TestHost child process (<c>dotnet Stellar.Store.TestHost.dll &lt;verb&gt; ...</c>), with
/// bounded waits for its output and a kill on dispose, so that a failing test never leaves a child behind or hangs.
/// </summary>
internal sealed class TestHostProcess : IDisposable
{
    private const string AssemblyName = "Stellar.Store.TestHost";
    private const string TargetFramework = "net10.0";
    private static readonly TimeSpan ExitTimeout = TimeSpan.FromSeconds(30);

    private readonly Process _process;
    private readonly StringBuilder _errors = new();

    private TestHostProcess(Process process)
    {
        _process = process;
        _process.ErrorDataReceived += (_, e) =>
        {
            lock (_errors)
            {
                _errors.AppendLine(e.Data);
            }
        };
        _process.BeginErrorReadLine();
    }

    /// <summary>What the child wrote on standard error so far.</summary>
    public string Errors
    {
        get
        {
            lock (_errors)
            {
                return _errors.ToString();
            }
        }
    }

    /// <summary>Starts the child with <paramref name="arguments"/> (a verb and its arguments).</summary>
    public static TestHostProcess Start(params string[] arguments) => StartWithEnvironment(new Dictionary<string, string>(), arguments);

    /// <summary>Starts the child with <paramref name="arguments"/>, adding <paramref name="environment"/> to the variables it inherits.</summary>
    public static TestHostProcess StartWithEnvironment(IReadOnlyDictionary<string, string> environment, params string[] arguments)
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

        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {AssemblyName}.");
        return new TestHostProcess(process);
    }

    /// <summary>Reads standard output until the line <paramref name="expected"/>; fails if it is not there in time.</summary>
    public async Task WaitForLineAsync(string expected, TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (true)
        {
            var remaining = timeout - deadline.Elapsed;
            string? line;
            try
            {
                // WaitAsync bounds the wait even if the pipe read ignores cancellation; the kill on dispose ends it.
                line = await _process.StandardOutput.ReadLineAsync().WaitAsync(remaining > TimeSpan.Zero ? remaining : TimeSpan.Zero);
            }
            catch (TimeoutException)
            {
                throw new TimeoutException($"{AssemblyName} did not print '{expected}' within {timeout}. Standard error: {Errors}");
            }

            if (line is null)
            {
                await _process.WaitForExitAsync().WaitAsync(ExitTimeout);
                throw new InvalidOperationException(
                    $"{AssemblyName} exited with code {_process.ExitCode} before printing '{expected}'. Standard error: {Errors}");
            }

            if (line == expected)
            {
                return;
            }
        }
    }

    /// <summary>
    /// The next line of standard output, or null once the child has exited and its output is drained; fails if
    /// no line comes in time (the read is then abandoned, so the child must be disposed).
    /// </summary>
    public async Task<string?> ReadLineAsync(TimeSpan timeout)
    {
        try
        {
            return await _process.StandardOutput.ReadLineAsync().WaitAsync(timeout);
        }
        catch (TimeoutException)
        {
            throw new TimeoutException($"{AssemblyName} printed nothing within {timeout}. Standard error: {Errors}");
        }
    }

    /// <summary>The child's exit code, once it has exited.</summary>
    public int ExitCode => _process.ExitCode;

    /// <summary>Waits for the child to exit on its own and returns its exit code.</summary>
    public async Task<int> WaitForExitAsync(TimeSpan timeout)
    {
        await _process.WaitForExitAsync().WaitAsync(timeout);
        return _process.ExitCode;
    }

    /// <summary>Kills the child and everything it started (SIGKILL on Unix) and waits until it is gone.</summary>
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
    /// The TestHost's assembly: next to the tests if someone copied it there, else in its own project's output,
    /// found by mirroring this assembly's <c>tests/Stellar.Store.Tests/bin/&lt;configuration&gt;/&lt;framework&gt;/</c>.
    /// </summary>
    private static string FindAssembly()
    {
        var fileName = AssemblyName + ".dll";
        var beside = Path.Combine(AppContext.BaseDirectory, fileName);
        if (File.Exists(beside))
        {
            return beside;
        }

        var frameworkDirectory = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        var configuration = frameworkDirectory.Parent?.Name;
        var testsDirectory = frameworkDirectory.Parent?.Parent?.Parent?.Parent;
        if (configuration is not null && testsDirectory is not null)
        {
            var mirrored = Path.Combine(testsDirectory.FullName, AssemblyName, "bin", configuration, TargetFramework, fileName);
            if (File.Exists(mirrored))
            {
                return mirrored;
            }

            throw new FileNotFoundException($"{fileName} is neither at '{beside}' nor at '{mirrored}'; build the tests first.", fileName);
        }

        throw new FileNotFoundException($"{fileName} is not at '{beside}'; build the tests first.", fileName);
    }
}
