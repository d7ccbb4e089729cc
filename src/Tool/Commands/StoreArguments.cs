using System.CommandLine;

namespace Stellar.Store.Tool.Commands;

/// <summary>The arguments several verbs share.</summary>
internal static class StoreArguments
{
    /// <summary>The store directory argument.</summary>
    public static Argument<DirectoryInfo> Store(string description = "The store directory") =>
        new("store") { Description = description };

    /// <summary>The collection name argument.</summary>
    public static Argument<string> Collection(string description) => new("collection") { Description = description };
}
