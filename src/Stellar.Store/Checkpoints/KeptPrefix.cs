namespace Stellar.Store.Checkpoints;

/// <summary>An active shard's first <paramref name="Length"/> bytes, as a checkpoint holds them in its own file at <paramref name="Path"/>.</summary>
internal readonly record struct KeptPrefix(string Path, long Length);
