namespace Stellar.Store;

/// <summary>
/// The store's manifest is older than a shard file in its directory (a copy of the manifest put back after the store
/// wrote on: a backup, a sync, a hand-made rollback), and opening with it would apply a committed write across
/// collections in some collections and not in others. Nothing was changed: put back the manifest saved after
/// <see cref="ShardPath"/> was made (the latest copy), or restore the whole directory from one backup.
/// </summary>
public sealed class StaleManifestException : StellarStoreException
{
    /// <summary>Creates the exception for the manifest at <paramref name="manifestPath"/> and the shard file at <paramref name="shardPath"/>.</summary>
    public StaleManifestException(string manifestPath, string shardPath, string reason)
        : base($"Store manifest '{manifestPath}' is older than shard file '{shardPath}': {reason}. Nothing was changed; put back the manifest saved after that shard was made, or restore the whole store directory from one backup.")
    {
        ManifestPath = manifestPath;
        ShardPath = shardPath;
    }

    /// <summary>The manifest the open found, older than <see cref="ShardPath"/>.</summary>
    public string ManifestPath { get; }

    /// <summary>The shard file the manifest does not list, which holds what the open cannot leave out consistently.</summary>
    public string ShardPath { get; }
}
