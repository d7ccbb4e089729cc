namespace Stellar.Store.Shards;

/// <summary>
/// A read of a large value reached a shard that a compaction has retired. The value read was already replaced when
/// the compaction pinned its version (a live one is moved before its shard is retired), so an unpinned reader
/// retries at the newest version; a pinned snapshot never meets it while it is open. Never reaches a caller.
/// </summary>
internal sealed class RetiredShardException : IOException
{
    public RetiredShardException(string path, Exception? inner = null)
        : base($"The shard '{path}' was retired by a compaction while a value was read from it.", inner)
    {
        Path = path;
    }

    /// <summary>The retired shard file.</summary>
    public string Path { get; }
}
