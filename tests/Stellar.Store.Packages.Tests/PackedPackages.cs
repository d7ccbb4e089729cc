using System.IO.Compression;
using System.Text.Json;
using System.Xml.Linq;

namespace Stellar.Store.Packages.Tests;

/// <summary>
/// Packs every project under <c>src/</c> once for the tests of a class, into a folder outside the repository, at a
/// version no other build uses; disposing deletes the folder and what a restore of that version left in the
/// machine's NuGet package folder.
/// </summary>
/// <remarks>
/// The version is new for every run because NuGet never looks at a package again once a version of it is in the
/// global package folder: a fixed version would let a consumer restore the copy of an earlier run. The build goes to
/// its own artifacts folder, so it never touches the outputs of the repository's own build.
/// </remarks>
public sealed class PackedPackages : IAsyncLifetime, IDisposable
{
    private readonly TempDirectory _directory = new();

    /// <summary>The repository's root: the folder that holds <c>Stellar.sln</c>.</summary>
    public string RepositoryRoot { get; } = FindRepositoryRoot();

    /// <summary>The folder the packages are in, and nothing else.</summary>
    public string Feed => _directory.Sub("feed");

    /// <summary>The prerelease label given to this run's packages.</summary>
    public string VersionSuffix { get; } = $"packtest.{DateTime.UtcNow:yyyyMMddHHmmss}.{Guid.NewGuid().ToString("n")[..8]}";

    /// <summary>The projects under <c>src/</c>, by file name without extension: the packages that must ship.</summary>
    public IReadOnlyList<string> ShippedProjects { get; private set; } = [];

    /// <summary>Every package in <see cref="Feed"/>.</summary>
    public IReadOnlyList<PackedPackage> Packages { get; private set; } = [];

    /// <summary>A scratch folder for the tests, deleted with the packages.</summary>
    public string Scratch(string name) => _directory.Sub(name);

    /// <inheritdoc />
    public async Task InitializeAsync()
    {
        var projects = Directory.GetFiles(Path.Combine(RepositoryRoot, "src"), "*.csproj", SearchOption.AllDirectories)
            .Select(project => Path.GetRelativePath(RepositoryRoot, project))
            .Order(StringComparer.Ordinal)
            .ToList();
        ShippedProjects = projects.Select(Path.GetFileNameWithoutExtension).ToList()!;

        // A solution filter of Stellar.sln with the projects under src/: one pack builds them together, as
        // 'dotnet pack' at the root does, and fails if one of them is missing from the solution.
        var filter = _directory.Sub("shipped.slnf");
        await File.WriteAllTextAsync(filter, JsonSerializer.Serialize(new
        {
            solution = new { path = Path.Combine(RepositoryRoot, "Stellar.sln"), projects },
        }));

        // The restore records the version a project reference gets in the package, so it sees the same suffix.
        string[] properties = ["--artifacts-path", _directory.Sub("artifacts"), $"-p:VersionSuffix={VersionSuffix}"];
        await Dotnet.RestoreAsync(RepositoryRoot, [filter, "-m:1", "--disable-build-servers", .. properties]);
        await Dotnet.RunAsync(
            RepositoryRoot,
            ["pack", filter, "-c", "Release", "-m:1", "--disable-build-servers", "--no-restore", "-o", Feed, .. properties]);

        Packages = Directory.GetFiles(Feed, "*.nupkg").Order(StringComparer.Ordinal).Select(Read).ToList();
    }

    /// <summary>Removes this run's packages from the machine's NuGet package folder, where a restore put them.</summary>
    public async Task DisposeAsync()
    {
        var listed = await Dotnet.RunAsync(_directory.Path, "nuget", "locals", "global-packages", "--list");
        var globalPackages = listed[(listed.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim();
        foreach (var package in Packages)
        {
            var versions = Path.Combine(globalPackages, package.Id.ToLowerInvariant());
            var restored = Path.Combine(versions, package.Version.ToLowerInvariant());
            if (Directory.Exists(restored))
            {
                Directory.Delete(restored, recursive: true);
            }

            DeleteIfEmpty(versions);
        }
    }

    /// <summary>Deletes the packages, their build and the tests' scratch folders.</summary>
    public void Dispose() => _directory.Dispose();

    /// <summary>The nuspec of a package, the manifest NuGet reads.</summary>
    public static XElement Nuspec(string packagePath)
    {
        using var zip = ZipFile.OpenRead(packagePath);
        var entry = zip.Entries.Single(e => !e.FullName.Contains('/', StringComparison.Ordinal) && e.FullName.EndsWith(".nuspec", StringComparison.Ordinal));
        using var stream = entry.Open();
        return XElement.Load(stream);
    }

    /// <summary>The value of the nuspec's metadata element <paramref name="name"/>, whatever the schema's namespace.</summary>
    public static XElement? Metadata(XElement nuspec, string name) =>
        nuspec.Elements().Single(e => e.Name.LocalName == "metadata").Elements().SingleOrDefault(e => e.Name.LocalName == name);

    /// <summary>The paths of the files inside a package.</summary>
    public static IReadOnlyList<string> Entries(string packagePath)
    {
        using var zip = ZipFile.OpenRead(packagePath);
        return zip.Entries.Select(e => e.FullName).ToList();
    }

    private static PackedPackage Read(string packagePath)
    {
        var nuspec = Nuspec(packagePath);
        var id = Metadata(nuspec, "id")?.Value ?? throw new InvalidDataException($"{packagePath} has no id.");
        var version = Metadata(nuspec, "version")?.Value ?? throw new InvalidDataException($"{packagePath} has no version.");
        return new PackedPackage(id, version, packagePath, Path.ChangeExtension(packagePath, ".snupkg"));
    }

    private static void DeleteIfEmpty(string directory)
    {
        try
        {
            if (Directory.Exists(directory) && !Directory.EnumerateFileSystemEntries(directory).Any())
            {
                Directory.Delete(directory);
            }
        }
        catch (IOException)
        {
            // Another restore on the machine has just put a version of its own there: the folder is in use, keep it.
        }
    }

    private static string FindRepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Stellar.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException($"No Stellar.sln above {AppContext.BaseDirectory}: these tests pack the repository they are built in.");
    }
}
