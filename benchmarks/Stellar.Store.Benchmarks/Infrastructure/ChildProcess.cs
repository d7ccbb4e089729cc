using System.Diagnostics;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// Runs this benchmark program again, in a fresh process, with a verb of its own: for what only a process of its own
/// can measure (the heap one load leaves, the open a server restart makes, with nothing compiled or allocated yet).
/// </summary>
/// <remarks>Thread safety: stateless; each call starts and waits for its own child.</remarks>
internal static class ChildProcess
{
    /// <summary>
    /// Runs the program with <paramref name="args"/> (a verb first) and returns the last line it wrote; throws, with
    /// what it wrote, when it exits with anything but 0 or writes nothing.
    /// </summary>
    public static string LastLine(params string[] args)
    {
        var self = Environment.ProcessPath!;
        var start = new ProcessStartInfo(self) { RedirectStandardOutput = true, UseShellExecute = false };
        if (Path.GetFileNameWithoutExtension(self) == "dotnet")
        {
            // Run through the host (as `dotnet run` or a test does): the program is this assembly.
            start.ArgumentList.Add(typeof(ChildProcess).Assembly.Location);
        }

        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using var child = Process.Start(start)!;
        var output = child.StandardOutput.ReadToEnd();
        child.WaitForExit();
        var last = output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).LastOrDefault();
        if (child.ExitCode != 0 || last is null)
        {
            throw new InvalidOperationException($"The child '{string.Join(' ', args)}' exited with {child.ExitCode}: {output}");
        }

        return last;
    }
}
