using System.Security;
using System.Xml.Linq;

namespace Stellar.Store.Packages.Tests;

/// <summary>
/// A console project as a user would write it, in a folder outside the repository (so none of the repository's
/// build files reach it), whose packages of this project come from one folder only.
/// </summary>
internal static class ConsumerProject
{
    /// <summary>The project's target framework: the runtime the tests themselves run on.</summary>
    public const string TargetFramework = "net10.0";

    private const string ProjectName = "Consumer";

    /// <summary>
    /// Writes the project into <paramref name="directory"/>: the <c>PackageReference</c> items
    /// <paramref name="references"/>, <paramref name="program"/> as its <c>Program.cs</c>, and a <c>nuget.config</c>
    /// whose sources are <paramref name="feed"/> for every <c>Stellar.Store</c> package and
    /// <paramref name="registries"/> for everything else.
    /// </summary>
    public static void Write(string directory, IEnumerable<XElement> references, string program, string feed, IReadOnlyList<string> registries)
    {
        Directory.CreateDirectory(directory);
        File.WriteAllText(Path.Combine(directory, "Program.cs"), program);
        File.WriteAllText(Path.Combine(directory, ProjectName + ".csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>{TargetFramework}</TargetFramework>
                <ImplicitUsings>enable</ImplicitUsings>
                <Nullable>enable</Nullable>
              </PropertyGroup>
              <ItemGroup>
            {string.Join('\n', references.Select(r => "    " + r))}
              </ItemGroup>
            </Project>
            """);

        // <clear/> drops the machine's sources, which come back under keys of our own, so that source mapping can
        // send the project's packages to the folder alone: a package missing from the folder fails the restore
        // instead of being found elsewhere.
        var sources = registries.Select((url, i) => $"""    <add key="registry-{i}" value="{Escape(url)}" />""");
        var mappings = registries.Select((_, i) => $"""
                <packageSource key="registry-{i}">
                  <package pattern="*" />
                </packageSource>
            """);
        File.WriteAllText(Path.Combine(directory, "nuget.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="stellar-packed" value="{Escape(feed)}" />
            {string.Join('\n', sources)}
              </packageSources>
              <packageSourceMapping>
                <packageSource key="stellar-packed">
                  <package pattern="Stellar.Store" />
                  <package pattern="Stellar.Store.*" />
                </packageSource>
            {string.Join('\n', mappings)}
              </packageSourceMapping>
            </configuration>
            """);
    }

    /// <summary>The built program, to run with <c>dotnet</c>.</summary>
    public static string Assembly(string directory) =>
        Path.Combine(directory, "bin", "Release", TargetFramework, ProjectName + ".dll");

    private static string Escape(string value) => SecurityElement.Escape(value);
}
