namespace Stellar.Store.Shards;

/// <summary>
/// Applies <paramref name="change"/> to the in-memory manifest and replaces the manifest file, as one step under
/// the manifest's lock, so that no other collection's save can write a change whose own save then fails. When the
/// replace fails, <paramref name="undo"/> runs (still under the lock) and the exception propagates: memory and
/// disk agree again.
/// </summary>
internal delegate void ManifestChange(Action change, Action undo);
