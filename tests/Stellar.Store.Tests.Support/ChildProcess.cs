using System.Diagnostics;
using System.Text;
using System.Threading.Channels;

namespace Stellar.Store.Tests.Support;

/// <summary>
/// A program of this repository running as a child process (<c>dotnet &lt;assembly&gt;.dll ...</c>), for tests that
/// need a second process: a lock held elsewhere, a kill -9 in the middle of writes. Its output is collected as it
/// comes (so a chatty child never blocks on a full pipe), every wait is bounded, and disposing kills it, so that a
/// failing test never leaves a child behind or hangs.
/// </summary>
/// <remarks>Thread safety: one test drives it; <see cref="Output"/> and <see cref="Errors"/> may be read from any thread.</remarks>
public sealed class ChildProcess : IDisposable
{
    private const string TargetFramework = "net10.0";
    private static readonly TimeSpan ExitTimeout = TimeSpan.FromSeconds(30);

    private readonly Process _process;
    private readonly string _assemblyName;
    private readonly StringBuilder _output = new();
    private readonly StringBuilder _errors = new();
    private readonly Channel<string> _lines = Channel.CreateUnbounded<string>(new UnboundedChannelOptions { SingleWriter = true });

    private ChildProcess(Process process, string assemblyName)
    {
        _process = process;
        _assemblyName = assemblyName;
        _process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is null)
            {
                _lines.Writer.TryComplete();
                return;
            }

            Append(_output, e.Data);
            _lines.Writer.TryWrite(e.Data);
        };
        _process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is not null)
            {
                Append(_output, e.Data);
                Append(_errors, e.Data);
            }
        };
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
    }

    /// <summary>Everything the child printed so far, standard output and error as they came.</summary>
    public string Output => Read(_output);

    /// <summary>What the child wrote on standard error so far.</summary>
    public string Errors => Read(_errors);

    /// <summary>The child's exit code, once it has exited.</summary>
    public int ExitCode => _process.ExitCode;

    /// <summary>
    /// Starts <paramref name="assemblyName"/>, the program of the project in <paramref name="projectDirectory"/> (a
    /// path from the repository's root, such as <c>samples/GameServer</c>), with <paramref name="arguments"/>, adding
    /// <paramref name="environment"/> to the variables it inherits.
    /// </summary>
    public static ChildProcess Start(string assemblyName, string projectDirectory, IReadOnlyDictionary<string, string>? environment, params string[] arguments)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        return Launch(assemblyName, workingDirectory: null, environment, [FindAssembly(assemblyName, projectDirectory), .. arguments]);
    }

    /// <summary>
    /// Starts the .NET SDK's own command, <c>dotnet</c> with <paramref name="arguments"/> (such as <c>pack</c> and
    /// its options), in <paramref name="workingDirectory"/>, adding <paramref name="environment"/> to the variables it
    /// inherits. Fails if there is no <c>dotnet</c> to start.
    /// </summary>
    public static ChildProcess StartDotnet(string workingDirectory, IReadOnlyDictionary<string, string>? environment, params string[] arguments)
    {
        ArgumentException.ThrowIfNullOrEmpty(workingDirectory);
        ArgumentNullException.ThrowIfNull(arguments);
        return Launch("dotnet " + string.Join(' ', arguments), workingDirectory, environment, arguments);
    }

    private static ChildProcess Launch(string name, string? workingDirectory, IReadOnlyDictionary<string, string>? environment, string[] arguments)
    {
        var start = new ProcessStartInfo(DotnetHost())
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? string.Empty,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (variable, value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[variable] = value;
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {name}.");
        return new ChildProcess(process, name);
    }

    /// <summary>Reads standard output until the line <paramref name="expected"/>; fails if it is not there in time.</summary>
    public async Task WaitForLineAsync(string expected, TimeSpan timeout) =>
        await WaitForLineAsync(line => line == expected, $"'{expected}'", timeout).ConfigureAwait(false);

    /// <summary>
    /// Reads standard output until a line that starts with <paramref name="prefix"/> and returns the rest of it;
    /// fails if none comes in time.
    /// </summary>
    public async Task<string> WaitForLineStartingWithAsync(string prefix, TimeSpan timeout)
    {
        var line = await WaitForLineAsync(line => line.StartsWith(prefix, StringComparison.Ordinal), $"'{prefix}...'", timeout).ConfigureAwait(false);
        return line[prefix.Length..];
    }

    /// <summary>
    /// The next line of standard output, or null once the child has exited and its output is drained; fails if
    /// no line comes in time.
    /// </summary>
    public async Task<string?> ReadLineAsync(TimeSpan timeout)
    {
        try
        {
            return await _lines.Reader.WaitToReadAsync().AsTask().WaitAsync(timeout).ConfigureAwait(false) && _lines.Reader.TryRead(out var line)
                ? line
                : null;
        }
        catch (TimeoutException)
        {
            throw new TimeoutException($"{_assemblyName} printed nothing within {timeout}. Standard error: {Errors}");
        }
    }

    /// <summary>Waits for the child to exit on its own and returns its exit code.</summary>
    public async Task<int> WaitForExitAsync(TimeSpan timeout)
    {
        await _process.WaitForExitAsync().WaitAsync(timeout).ConfigureAwait(false);
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
            throw new TimeoutException($"{_assemblyName} (pid {_process.Id}) did not exit within {ExitTimeout} of being killed.");
        }
    }

    /// <summary>Kills the child if it still runs.</summary>
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

    private async Task<string> WaitForLineAsync(Func<string, bool> match, string what, TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (true)
        {
            var remaining = timeout - deadline.Elapsed;
            string? line;
            try
            {
                line = await ReadLineAsync(remaining > TimeSpan.Zero ? remaining : TimeSpan.Zero).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                throw new TimeoutException($"{_assemblyName} did not print {what} within {timeout}. Output: {Output}");
            }

            if (line is null)
            {
                await _process.WaitForExitAsync().WaitAsync(ExitTimeout).ConfigureAwait(false);
                throw new InvalidOperationException($"{_assemblyName} exited with code {_process.ExitCode} before printing {what}. Output: {Output}");
            }

            if (match(line))
            {
                return line;
            }
        }
    }

    private static void Append(StringBuilder text, string line)
    {
        lock (text)
        {
            text.AppendLine(line);
        }
    }

    private static string Read(StringBuilder text)
    {
        lock (text)
        {
            return text.ToString();
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
    /// The program's assembly: next to the tests when its runtime config was copied too, else in its own project's
    /// output, found by mirroring the test assembly's <c>tests/&lt;project&gt;/bin/&lt;configuration&gt;/&lt;framework&gt;/</c>.
    /// </summary>
    private static string FindAssembly(string assemblyName, string projectDirectory)
    {
        var fileName = assemblyName + ".dll";
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
            var mirrored = Path.Combine(repository.FullName, projectDirectory, "bin", configuration, TargetFramework, fileName);
            if (File.Exists(mirrored))
            {
                return mirrored;
            }

            throw new FileNotFoundException($"{fileName} is neither at '{beside}' nor at '{mirrored}'; build the tests first.", fileName);
        }

        throw new FileNotFoundException($"{fileName} is not at '{beside}'; build the tests first.", fileName);
    }
}
