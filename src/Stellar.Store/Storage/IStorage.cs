namespace Stellar.Store.Storage;

/// <summary>
/// The directory of one store: the only way the engine touches files, so that tests can swap in an in-memory
/// or a fault-injecting implementation. Names are plain file names made by the engine (never user text), with
/// no directory part.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal interface IStorage
{
    /// <summary>A description of where the store lives (the directory's path for files), for error messages.</summary>
    string Location { get; }

    /// <summary>Opens the named file for appending and reading, creating it empty when it does not exist.</summary>
    IStorageFile Open(string name);

    /// <summary>Opens an existing file for reading only; <see cref="FileNotFoundException"/> when it does not exist.</summary>
    IStorageFile OpenRead(string name);

    /// <summary>Whether the named file exists.</summary>
    bool Exists(string name);

    /// <summary>The names of every file in the store directory.</summary>
    IReadOnlyList<string> List();

    /// <summary>Deletes the named file if it exists.</summary>
    void Delete(string name);

    /// <summary>Reads a whole (small) file, such as the manifest.</summary>
    byte[] ReadAllBytes(string name);

    /// <summary>
    /// Replaces the named file with <paramref name="content"/> atomically: writes a temporary file, flushes it to
    /// disk, renames it over the target, and flushes the directory, so a crash leaves either the old or the new
    /// content, never a mix.
    /// </summary>
    void ReplaceAtomically(string name, ReadOnlySpan<byte> content);

    /// <summary>Renames <paramref name="from"/> to <paramref name="to"/> atomically and makes the rename durable.</summary>
    void Rename(string from, string to);

    /// <summary>
    /// Takes the store's exclusive lock, held until the returned handle is disposed. Fails with
    /// <see cref="StoreLockedException"/> when the store is open elsewhere, in this process or another. A lock held
    /// by a process that died is released by the operating system.
    /// </summary>
    IDisposable AcquireLock();

    /// <summary>
    /// The full path of file <paramref name="name"/> on the machine's file system, or null for a storage that keeps no
    /// such files (in memory): checkpoints link and copy shard files by path, so they need a storage on files.
    /// </summary>
    string? FilePath(string name) => null;
}
