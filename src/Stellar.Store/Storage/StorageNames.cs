namespace Stellar.Store.Storage;

/// <summary>
/// The rules every <see cref="IStorage"/> applies to file names, so that the in-memory and fault-injecting
/// versions reject exactly what the file version rejects and a test on one holds for all.
/// </summary>
internal static class StorageNames
{
    /// <summary>
    /// The name of the store's lock file. It belongs to the storage, not to the engine: it is reserved, and
    /// <see cref="IStorage.List"/> leaves it out, so that no garbage collection of unknown files can delete a
    /// lock that another process holds (on Unix a deleted lock file lets the next opener lock a new one).
    /// </summary>
    public const string LockFileName = "LOCK";

    /// <summary>The suffix of the temporary file that <see cref="IStorage.ReplaceAtomically"/> writes first.</summary>
    public const string TempSuffix = ".tmp";

    /// <summary>
    /// Throws <see cref="ArgumentException"/> unless <paramref name="name"/> is a plain file name: not empty, no
    /// directory part, not <c>.</c> or <c>..</c>, no character the file system rejects, and not the lock file.
    /// </summary>
    public static void Validate(string name, string paramName)
    {
        ArgumentException.ThrowIfNullOrEmpty(name, paramName);
        if (name is "." or ".."
            || name.AsSpan().IndexOfAny(Path.GetInvalidFileNameChars()) >= 0
            || name.Contains('/', StringComparison.Ordinal)
            || name.Contains('\\', StringComparison.Ordinal))
        {
            throw new ArgumentException($"'{name}' is not a plain file name.", paramName);
        }

        if (string.Equals(name, LockFileName, StringComparison.OrdinalIgnoreCase))
        {
            throw new ArgumentException($"'{name}' is reserved for the store's lock.", paramName);
        }
    }
}
