namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>
/// The store directory was written by an older version of the sample, which kept characters, items, the ledger and
/// trades in one <c>economy</c> collection. This version keeps them in collections of their own and does not read
/// that layout; the old data is left as it is.
/// </summary>
internal sealed class OlderLayoutException : Exception
{
    public OlderLayoutException(string directory)
        : base($"'{directory}' was written by an older layout of this sample (characters, items, the gold ledger and trades " +
            "in one 'economy' collection); this version keeps them in separate collections and does not read that layout. " +
            "The save is left as it is; play on a new --data directory.")
    {
        Directory = directory;
    }

    /// <summary>The store directory.</summary>
    public string Directory { get; }
}
