using System.Diagnostics;
using System.Globalization;

namespace Stellar.Store.Tests.Support;

/// <summary>
/// A small, size-limited file system mounted for one test (a tmpfs on Linux), so that a disk really fills up.
/// Mounting needs Linux and the right to mount (root or CAP_SYS_ADMIN); <see cref="TryMount"/> says why when it
/// cannot, and the test skips with that reason.
/// </summary>
public sealed class SmallFileSystem : IDisposable
{
    private static readonly TimeSpan CommandTimeout = TimeSpan.FromSeconds(30);

    private SmallFileSystem(string path) => Path = path;

    /// <summary>The mount point.</summary>
    public string Path { get; }

    /// <summary>
    /// Mounts a file system of <paramref name="bytes"/> at <paramref name="path"/>, or ends the calling test as skipped
    /// with the reason it cannot (<see cref="Skip.Because"/>): for a skippable test that needs a disk that really fills.
    /// </summary>
    public static SmallFileSystem MountOrSkip(string path, long bytes)
    {
        var disk = TryMount(path, bytes, out var reason);
        if (disk is null)
        {
            Skip.Because(reason);
        }

        return disk;
    }

    /// <summary>Mounts a file system of <paramref name="bytes"/> at <paramref name="path"/>, or returns null with the reason it cannot.</summary>
    private static SmallFileSystem? TryMount(string path, long bytes, out string reason)
    {
        if (!OperatingSystem.IsLinux())
        {
            reason = "a real full disk needs a tmpfs mount, which this test only does on Linux";
            return null;
        }

        Directory.CreateDirectory(path);
        var (exitCode, output) = Run("mount", "-t", "tmpfs", "-o", string.Create(CultureInfo.InvariantCulture, $"size={bytes},mode=0700"), "tmpfs", path);
        if (exitCode != 0)
        {
            reason = $"this process may not mount a tmpfs (mount exited with {exitCode}: {output.Trim()}); it needs root or CAP_SYS_ADMIN";
            return null;
        }

        reason = "";
        return new SmallFileSystem(path);
    }

    /// <summary>
    /// Gives the file system <paramref name="bytes"/> of room, keeping what it holds (a player who freed disk space); throws
    /// when the remount fails.
    /// </summary>
    public void Resize(long bytes)
    {
        var (exitCode, output) = Run("mount", "-o", string.Create(CultureInfo.InvariantCulture, $"remount,size={bytes}"), Path);
        if (exitCode != 0)
        {
            throw new InvalidOperationException($"The tmpfs at '{Path}' could not be resized (mount exited with {exitCode}: {output.Trim()}).");
        }
    }

    public void Dispose()
    {
        // Lazily if something still holds a file there; the mount must not outlive the test either way.
        if (Run("umount", Path).ExitCode != 0)
        {
            Run("umount", "-l", Path);
        }
    }

    private static (int ExitCode, string Output) Run(string command, params string[] arguments)
    {
        var start = new ProcessStartInfo(command)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        try
        {
            using var process = Process.Start(start)!;
            var error = process.StandardError.ReadToEndAsync();
            var output = process.StandardOutput.ReadToEndAsync();
            if (!process.WaitForExit(CommandTimeout))
            {
                process.Kill();
                return (-1, $"{command} did not finish within {CommandTimeout}");
            }

            return (process.ExitCode, output.Result + error.Result);
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            return (-1, $"{command} could not be started: {e.Message}");
        }
    }
}
