namespace Stellar.Store.Engine;

/// <summary>
/// A request to the collection's writer, queued like a write, to publish once more after the oldest snapshot was
/// released, so that it cuts the versions and deletes the compacted shard files only that snapshot still needed,
/// even when no write follows. It stores nothing.
/// </summary>
internal sealed record ReleaseStep
{
    public static readonly ReleaseStep Instance = new();
}
