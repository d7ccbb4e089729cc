namespace Stellar.Store.Packages.Tests;

/// <summary>One package that <c>dotnet pack</c> made: its id and version as its nuspec says, and its two files.</summary>
public sealed record PackedPackage(string Id, string Version, string PackagePath, string SymbolsPath);
