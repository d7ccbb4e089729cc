using System.Xml.Linq;

namespace Stellar.Store.Packages.Tests;

/// <summary>
/// What <c>dotnet pack</c> makes of the projects under <c>src/</c>: one package with symbols per project, at one
/// version, each with what a package page and a debugger need, and enough on its own for the README's program.
/// </summary>
public sealed class PackageTests(PackedPackages packed) : IClassFixture<PackedPackages>
{
    // The last line the README's program prints: the record, read back after the store was closed and opened again.
    private const string ReadmeProgramLastLine = "Ada is back at level 12";

    // What the Stellar.Store.Testing readme's program reads from its in-memory store after the simulated crash.
    private const string TestingReadmeRecord = "Score { Id = 1, Points = 100 }";

    [Fact]
    public void Pack_EveryProjectUnderSrc_GivesOnePackageWithSymbolsAtOneVersion()
    {
        Assert.Equal(packed.ShippedProjects.Order(StringComparer.Ordinal), packed.Packages.Select(p => p.Id).Order(StringComparer.Ordinal));
        var version = Assert.Single(packed.Packages.Select(p => p.Version).Distinct());
        Assert.EndsWith("-" + packed.VersionSuffix, version, StringComparison.Ordinal);
        Assert.All(packed.Packages, p => Assert.True(File.Exists(p.SymbolsPath), $"{p.Id} has no symbols package beside it."));
    }

    [Fact]
    public void Pack_EveryPackage_CarriesLicenseReadmeRepositoryAndDescription()
    {
        Assert.NotEmpty(packed.Packages);
        Assert.All(packed.Packages, package =>
        {
            var nuspec = PackedPackages.Nuspec(package.PackagePath);
            var entries = PackedPackages.Entries(package.PackagePath);

            var license = PackedPackages.Metadata(nuspec, "license");
            Assert.Equal("expression", license?.Attribute("type")?.Value);
            Assert.Equal("MIT", license?.Value);
            Assert.Contains("LICENSE", entries);

            var readme = PackedPackages.Metadata(nuspec, "readme")?.Value;
            Assert.False(string.IsNullOrEmpty(readme), $"{package.Id} names no readme.");
            Assert.Contains(readme, entries);

            var repository = PackedPackages.Metadata(nuspec, "repository");
            Assert.StartsWith("https://", repository?.Attribute("url")?.Value, StringComparison.Ordinal);
            Assert.False(string.IsNullOrWhiteSpace(PackedPackages.Metadata(nuspec, "description")?.Value), $"{package.Id} has no description.");
            Assert.False(string.IsNullOrWhiteSpace(PackedPackages.Metadata(nuspec, "tags")?.Value), $"{package.Id} has no tags.");

            // A dotnet tool carries its program, not a library: no reference assembly, no XML docs, one runtime.
            if (PackedPackages.Metadata(nuspec, "packageTypes")?.Elements().Any(t => t.Attribute("name")?.Value == "DotnetTool") == true)
            {
                Assert.Contains($"tools/net10.0/any/{package.Id}.dll", entries);
                Assert.Contains($"tools/net10.0/any/{package.Id}.pdb", PackedPackages.Entries(package.SymbolsPath));
                return;
            }

            foreach (var framework in new[] { "net10.0", "net8.0" })
            {
                Assert.Contains($"lib/{framework}/{package.Id}.dll", entries);
                Assert.Contains($"lib/{framework}/{package.Id}.xml", entries);
                Assert.Contains($"lib/{framework}/{package.Id}.pdb", PackedPackages.Entries(package.SymbolsPath));
            }
        });
    }

    [Fact]
    public void Readme_PackageReference_NamesTheVersionThePackagesHave()
    {
        var store = Assert.Single(packed.Packages, p => p.Id == "Stellar.Store");
        var released = store.Version[..^("-" + packed.VersionSuffix).Length];
        Assert.Contains($"""<PackageReference Include="Stellar.Store" Version="{released}" />""", Readme(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ReadmeProgram_WithTheReadmesPackageReferences_RestoresFromThePackagesAndReadsItsRecordAfterAReopen()
    {
        var store = Assert.Single(packed.Packages, p => p.Id == "Stellar.Store");
        var consumer = packed.Scratch("consumer");
        ConsumerProject.Write(consumer, ReadmeReferences(store.Version), ReadmeBlock(Readme(), "## Use it in your project", "csharp"), packed.Feed, await RegistriesAsync());

        await Dotnet.RestoreAsync(consumer, "-m:1", "--disable-build-servers");
        await Dotnet.RunAsync(consumer, "build", "-c", "Release", "-m:1", "--disable-build-servers", "--no-restore");
        var output = await Dotnet.RunAsync(consumer, ConsumerProject.Assembly(consumer));

        Assert.Equal(ReadmeProgramLastLine, output.TrimEnd().Split('\n')[^1].TrimEnd('\r'));
    }

    [Fact]
    public void Pack_StellarStore_DependsOnMessagePack3WithoutTheHeldBackAnalyzer()
    {
        // A package dependency on MessagePackAnalyzer 2.5.307 would downgrade the analyzer MessagePack 3 asks for in
        // every consumer, which NuGet fails as NU1605: the pin stays in the repository's projects and in the README.
        var store = Assert.Single(packed.Packages, p => p.Id == "Stellar.Store");
        var dependencies = PackedPackages.Metadata(PackedPackages.Nuspec(store.PackagePath), "dependencies")!
            .Descendants().Where(e => e.Name.LocalName == "dependency").ToList();
        Assert.All(dependencies.Where(d => d.Attribute("id")?.Value == "MessagePack"), d => Assert.StartsWith("3.", d.Attribute("version")?.Value, StringComparison.Ordinal));
        Assert.Contains(dependencies, d => d.Attribute("id")?.Value == "MessagePack");
        Assert.DoesNotContain(dependencies, d => d.Attribute("id")?.Value == "MessagePackAnalyzer");
    }

    [Fact]
    public async Task TestingReadmeProgram_WithTheReadmesPackageReferences_RunsAStoreInMemoryThroughACrash()
    {
        var testing = Assert.Single(packed.Packages, p => p.Id == "Stellar.Store.Testing");
        var consumer = packed.Scratch("testing-consumer");
        var references = ReadmeReferences(testing.Version).Append(new XElement("PackageReference", new XAttribute("Include", testing.Id), new XAttribute("Version", testing.Version)));
        var program = ReadmeBlock(File.ReadAllText(Path.Combine(packed.RepositoryRoot, "src", "Stellar.Store.Testing", "README.md")).ReplaceLineEndings("\n"), "# Stellar.Store.Testing", "csharp");

        // The readme says in a comment what the record read after the crash is: the program prints it instead.
        const string Shown = "// " + TestingReadmeRecord;
        Assert.Contains(Shown, program, StringComparison.Ordinal);
        ConsumerProject.Write(consumer, references, program.Replace(Shown, "Console.WriteLine(score);", StringComparison.Ordinal), packed.Feed, await RegistriesAsync());
        await Dotnet.RestoreAsync(consumer, "-m:1", "--disable-build-servers");
        await Dotnet.RunAsync(consumer, "build", "-c", "Release", "-m:1", "--disable-build-servers", "--no-restore");
        var output = await Dotnet.RunAsync(consumer, ConsumerProject.Assembly(consumer));

        Assert.Equal(TestingReadmeRecord, output.TrimEnd().Split('\n')[^1].TrimEnd('\r'));
    }

    /// <summary>
    /// The <c>PackageReference</c> items of the README's "Use it in your project" section, with every package of this
    /// project at <paramref name="version"/>, the version this run packed.
    /// </summary>
    private List<XElement> ReadmeReferences(string version)
    {
        var references = XElement.Parse($"<ItemGroup>{ReadmeBlock(Readme(), "## Use it in your project", "xml")}</ItemGroup>").Elements("PackageReference").ToList();
        Assert.Contains(references, r => r.Attribute("Include")?.Value == "Stellar.Store");
        foreach (var reference in references.Where(r => r.Attribute("Include")!.Value.StartsWith("Stellar.Store", StringComparison.Ordinal)))
        {
            reference.SetAttributeValue("Version", version);
        }

        return references;
    }

    /// <summary>The first code block in <paramref name="language"/> after the heading <paramref name="section"/>.</summary>
    private static string ReadmeBlock(string readme, string section, string language)
    {
        var open = $"```{language}\n";
        var start = readme.IndexOf(section, StringComparison.Ordinal);
        Assert.True(start >= 0, $"The readme has no '{section}' section.");
        start = readme.IndexOf(open, start, StringComparison.Ordinal);
        Assert.True(start >= 0, $"The readme's '{section}' section has no {language} block.");
        start += open.Length;
        var end = readme.IndexOf("```", start, StringComparison.Ordinal);
        return readme[start..end];
    }

    private string Readme() => File.ReadAllText(Path.Combine(packed.RepositoryRoot, "README.md")).ReplaceLineEndings("\n");

    /// <summary>
    /// The package sources this machine restores the repository from (NuGet's configuration as seen from its root):
    /// the program's other dependencies, Akka.NET, MessagePack and LZ4, come from there as a user's would.
    /// </summary>
    private async Task<IReadOnlyList<string>> RegistriesAsync()
    {
        // Short format: one "E <url>" line per enabled source ("D" for disabled ones).
        var listed = await Dotnet.RunAsync(packed.RepositoryRoot, "nuget", "list", "source", "--format", "Short");
        var registries = listed.Split('\n')
            .Select(line => line.Trim())
            .Where(line => line.StartsWith("E ", StringComparison.Ordinal))
            .Select(line => line[2..].Trim())
            .ToList();
        Assert.True(registries.Count > 0, $"No enabled package source is configured:\n{listed}");
        return registries;
    }
}
