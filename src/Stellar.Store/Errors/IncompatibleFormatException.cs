namespace Stellar.Store;

/// <summary>The store on disk was written in a format this version of Stellar.Store cannot read.</summary>
public sealed class IncompatibleFormatException : StellarStoreException
{
    /// <summary>Creates the exception for a store of format <paramref name="found"/>.</summary>
    public IncompatibleFormatException(string path, int found, int expected)
        : base($"Store '{path}' has format version {found}; this build of Stellar.Store reads version {expected} and older.")
    {
        Path = path;
        Found = found;
        Expected = expected;
    }

    /// <summary>The file whose format was checked.</summary>
    public string Path { get; }

    /// <summary>The format version found on disk.</summary>
    public int Found { get; }

    /// <summary>The newest format version this build reads.</summary>
    public int Expected { get; }
}
