namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>Where stores, side metrics and results live.</summary>
public static class Paths
{
    /// <summary>Stores are created under the OS temp directory, one folder per benchmark instance.</summary>
    public static string StoresRoot => Path.Combine(Path.GetTempPath(), "stellar-bench", "stores");

    /// <summary>
    /// Side metrics (sizes on disk, bytes per operation) that benchmark processes hand to the host, kept beside the
    /// run's own artifacts: in a folder shared by every checkout on the machine, another checkout's dry run would
    /// clear or overwrite them halfway through a real run.
    /// </summary>
    public static string MetricsRoot => Path.Combine(Scale.Dry ? DryArtifacts : Artifacts, "metrics");

    /// <summary>
    /// The repository's <c>benchmarks</c> folder, found by walking up from the executable to the folder that holds
    /// <c>Stellar.sln</c>; the current directory when the exe runs outside the repository.
    /// </summary>
    public static string BenchmarksFolder
    {
        get
        {
            for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
            {
                if (File.Exists(Path.Combine(dir.FullName, "Stellar.sln")))
                {
                    return Path.Combine(dir.FullName, "benchmarks");
                }
            }

            return Directory.GetCurrentDirectory();
        }
    }

    /// <summary>BenchmarkDotNet's artifacts (logs, raw reports): not committed.</summary>
    public static string Artifacts => Path.Combine(BenchmarksFolder, "BenchmarkDotNet.Artifacts");

    /// <summary>
    /// A dry run's artifacts: in the temp directory, so rot checks never touch the committed results, and one folder
    /// per process, so dry runs of several checkouts at once do not read each other's reports (a dry run is in-process).
    /// </summary>
    public static string DryArtifacts => Path.Combine(Path.GetTempPath(), "stellar-bench", $"dry-artifacts-{Environment.ProcessId}");

    /// <summary>The committed results: exported reports, the ratio table and the chart.</summary>
    public static string Results => Path.Combine(BenchmarksFolder, "results");

    /// <summary>A new, empty directory for one store.</summary>
    public static string FreshDirectory(string parent, string name)
    {
        var path = Path.Combine(parent, name);
        if (Directory.Exists(path))
        {
            Directory.Delete(path, recursive: true);
        }

        Directory.CreateDirectory(path);
        return path;
    }

    /// <summary>Bytes taken by every file under <paramref name="path"/>.</summary>
    public static long SizeOnDisk(string path) => Directory.Exists(path)
        ? new DirectoryInfo(path).EnumerateFiles("*", SearchOption.AllDirectories).Sum(f => f.Length)
        : 0;
}
