namespace Stellar.Store;

/// <summary>
/// A block on disk failed verification (checksum, header or authentication) somewhere recovery cannot treat as
/// a torn tail. The store refuses to open rather than drop committed data; <see cref="Path"/> and
/// <see cref="Offset"/> say where to look.
/// </summary>
public sealed class CorruptBlockException : StellarStoreException
{
    /// <summary>Creates the exception for the block at <paramref name="offset"/> of <paramref name="path"/>.</summary>
    public CorruptBlockException(string path, long offset, string reason, Exception? innerException = null)
        : base($"Corrupt block in '{path}' at offset {offset}: {reason}", innerException)
    {
        Path = path;
        Offset = offset;
        Reason = reason;
    }

    /// <summary>The file that holds the bad block.</summary>
    public string Path { get; }

    /// <summary>The byte offset of the bad block in <see cref="Path"/>.</summary>
    public long Offset { get; }

    /// <summary>What failed: checksum, header field, authentication tag, decoding.</summary>
    public string Reason { get; }
}
