namespace Stellar.Store.Shards;

/// <summary>
/// Applies <paramref name="change"/> to the in-memory manifest and replaces the manifest file, as one step under
/// the manifest's lock. When the replace throws, its outcome is unknown (the rename may have happened and only the
/// directory fsync failed), so the change is not undone: memory keeps the new state and the exception propagates,
/// and the caller must fault its collection and delete nothing that either manifest could name.
/// </summary>
/// <remarks>
/// Memory stays a state that is safe to write: every change is made only once the files it names are complete on
/// disk, and the manifest is always written whole. So when another collection's next change writes the manifest,
/// this change goes to disk with it, which is as correct as the replace having worked.
/// </remarks>
internal delegate void ManifestChange(Action change);
