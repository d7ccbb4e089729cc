namespace Stellar.Store.Engine;

/// <summary>
/// What a collection's writer can be asked to do: the closed set of writes that pass the writer seam
/// (<see cref="SingleWrite{TKey,TValue}"/>, <see cref="BatchWrite{TKey,TValue}"/>, <see cref="CompactionStep{TKey,TValue}"/>,
/// <see cref="ReleaseStep{TKey,TValue}"/>, <see cref="IndexStep{TKey,TValue}"/>, <see cref="ExpiryStep{TKey,TValue}"/>, <see cref="CheckpointStep{TKey,TValue}"/>). Every kind says what it counts against the queue's byte bound, gives back
/// its buffers, and is staged through the engine's method for its kind, so a new kind of write does not compile
/// until the submit path, the queue bound and the engine all handle it.
/// </summary>
/// <remarks>Only this assembly can add a kind (the constructor is private protected).</remarks>
internal abstract class CollectionWrite<TKey, TValue>
{
    private protected CollectionWrite()
    {
    }

    /// <summary>What the write counts against the writer's byte bounds: its encoded records.</summary>
    public abstract long Bytes { get; }

    /// <summary>Gives the write's pooled buffers back, once its outcome is known. Idempotent and thread-safe.</summary>
    public abstract void Release();

    /// <summary>
    /// Stages the write through <paramref name="stager"/>'s method for its kind; returns the rejection, or null.
    /// <paramref name="existed"/> is whether the write's key existed before it (false for writes of no single key).
    /// </summary>
    public abstract Exception? StageInto(IWriteStaging<TKey, TValue> stager, out bool existed);
}
