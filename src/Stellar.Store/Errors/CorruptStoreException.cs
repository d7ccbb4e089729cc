namespace Stellar.Store;

/// <summary>
/// A file of the store other than a block is damaged or missing (the manifest, a shard the manifest lists), so
/// the store cannot be opened without risking wrong data. <see cref="Path"/> names the file.
/// </summary>
public sealed class CorruptStoreException : StellarStoreException
{
    /// <summary>Creates the exception for <paramref name="path"/>.</summary>
    public CorruptStoreException(string path, string reason, Exception? innerException = null)
        : base($"Store file '{path}' is damaged: {reason}", innerException)
    {
        Path = path;
    }

    /// <summary>The damaged or missing file.</summary>
    public string Path { get; }
}
