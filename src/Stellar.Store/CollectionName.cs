namespace Stellar.Store;

/// <summary>The rule for collection names. Names map to numeric ids; no file name is ever made from one.</summary>
internal static class CollectionName
{
    public const string Rule = "a collection name is 1 to 64 characters of ASCII letters, digits, '-', '_' and '.', is not '.' or '..' or made only of dots, and is not a reserved device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9)";

    private static readonly HashSet<string> Reserved = new(StringComparer.OrdinalIgnoreCase)
    {
        "CON", "PRN", "AUX", "NUL",
        "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
        "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
    };

    /// <summary>The store's own collection of cross-collection decisions: a name the rule keeps from every user's collection.</summary>
    public const string UnitLog = "$units";

    /// <summary>The store's own collection of change feed cursors: a name the rule keeps from every user's collection.</summary>
    public const string FeedCursors = "$cursors";

    /// <summary>Whether a manifest may list <paramref name="name"/>: a valid name, or a collection the store owns.</summary>
    public static bool IsValidInManifest(string? name) => IsValid(name) || name == UnitLog || name == FeedCursors;

    public static bool IsValid(string? name) =>
        name is { Length: >= 1 and <= 64 }
        && name.All(c => c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '-' or '_' or '.')
        && name.Any(c => c != '.')
        && !Reserved.Contains(name.Split('.')[0]);

    public static void Validate(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (!IsValid(name))
        {
            throw new ArgumentException($"Invalid collection name '{(name.Length > 80 ? name[..80] + "…" : name)}': {Rule}.", nameof(name));
        }
    }
}
