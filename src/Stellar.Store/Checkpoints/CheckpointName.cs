namespace Stellar.Store.Checkpoints;

/// <summary>The rule for a checkpoint's name, which is the name of its directory under the store's checkpoints directory.</summary>
internal static class CheckpointName
{
    public const string Rule = "a checkpoint name is 1 to 64 characters of ASCII letters, digits, '-', '_' and '.', does not start with '.', does not end with '.partial', and is not a reserved device name";

    /// <summary>The suffix of a checkpoint's directory while it is being written; an interrupted one keeps it.</summary>
    public const string PartialSuffix = ".partial";

    public static bool IsValid(string? name) =>
        CollectionName.IsValid(name) && name![0] != '.' && !name.EndsWith(PartialSuffix, StringComparison.OrdinalIgnoreCase);

    public static void Validate(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (!IsValid(name))
        {
            throw new ArgumentException($"Invalid checkpoint name '{(name.Length > 80 ? name[..80] + "…" : name)}': {Rule}.", nameof(name));
        }
    }
}
