namespace Stellar.Store;

/// <summary>
/// The store is already open, in this process or another. Only one open store may own a directory; a lock
/// left by a process that died is released by the operating system and never blocks the next open.
/// </summary>
public sealed class StoreLockedException : StellarStoreException
{
    /// <summary>Creates the exception for the store at <paramref name="path"/>.</summary>
    public StoreLockedException(string path, Exception? innerException = null)
        : base($"Store '{path}' is already open in this or another process.", innerException)
    {
        Path = path;
    }

    /// <summary>The store directory.</summary>
    public string Path { get; }
}
