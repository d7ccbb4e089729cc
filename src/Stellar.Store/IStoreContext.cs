namespace Stellar.Store;

/// <summary>
/// What a collection and its snapshots need of the store that opened them: its options and whether it is closing.
/// Through this and not the store itself, so that the store depends on its collections and never the other way.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal interface IStoreContext
{
    /// <summary>The options the store was opened with (secrets removed).</summary>
    StoreOptions Options { get; }

    /// <summary>The time by which the store's collections and snapshots decide what has expired: its clock, never going back while it is open.</summary>
    Snapshots.ExpiryClock Clock { get; }

    /// <summary>Whether disposal has begun.</summary>
    bool IsDisposed { get; }

    /// <summary>Throws <see cref="ObjectDisposedException"/> once disposal has begun.</summary>
    void ThrowIfDisposed();

    /// <summary>Throws <see cref="InvalidOperationException"/> when the store was opened read-only (from a checkpoint).</summary>
    void ThrowIfReadOnly();

    /// <summary>
    /// The store's own collection of change feed cursors (loaded, or made, at first use): for each cursor, keyed
    /// <c>collection/cursor</c>, the position its consumer acknowledged, in its text form, and its hold on compaction.
    /// </summary>
    Collection<string, Feed.FeedCursorRecord> FeedCursors();

    /// <summary>The gates that let the updates of each cursor in <see cref="FeedCursors"/> run one at a time.</summary>
    Feed.FeedCursorGates FeedCursorGates { get; }
}
