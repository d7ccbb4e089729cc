using System.Runtime.CompilerServices;

namespace Stellar.Store;

/// <summary>The collection's change feed.</summary>
public sealed partial class Collection<TKey, TValue>
{
    /// <summary>
    /// The collection's committed changes after <paramref name="from"/>, in commit order, read from its files; once
    /// it has delivered every change committed so far it waits for the next ones, until
    /// <paramref name="cancellationToken"/> is cancelled (the enumeration then throws <see cref="OperationCanceledException"/>).
    /// <see cref="ChangePosition.Start"/> starts at the oldest change still on disk (after a compaction, a snapshot
    /// of the records alive then, as puts); <see cref="ChangePosition.Now"/> delivers the changes committed after
    /// the call, also those committed before the enumeration starts (a snapshot taken after the call and the feed
    /// together miss nothing); a change's <see cref="Change{TKey,TValue}.Position"/> resumes after it, also after a restart.
    /// <c>Changes()</c> and <c>Changes(default)</c> start at <see cref="ChangePosition.Start"/>, which is
    /// <c>default(ChangePosition)</c>: the <c>default</c> literal picks this overload, not the cursor name's.
    /// </summary>
    /// <remarks>
    /// <para>Only committed changes: a write appears once its task completed or could have (published to readers),
    /// a cross-collection write's part only once the round is decided, and never a torn tail cut at open or a part
    /// whose round was not decided. An atomic unit (a batch, a cross-collection write's part, the writes committed
    /// together in one block) is delivered whole, its last change marked <see cref="Change{TKey,TValue}.EndsUnit"/>.
    /// Applying the feed from <see cref="ChangePosition.Start"/> to an empty dictionary gives the collection's
    /// contents; records that expired but whose delete the writer has not written yet are still there
    /// (<see cref="Change{TKey,TValue}.ExpiresAt"/> tells them).</para>
    /// <para>In <see cref="Durability.Buffered"/> mode the feed reads what reached the OS: while a feed is open each
    /// commit is handed to the OS at once, and a feed that starts behind what is buffered flushes the collection.</para>
    /// <para>Thread safety: any thread; each enumeration is an independent reader, and any number may run at once.
    /// Nothing is written by reading. The enumeration ends with <see cref="ObjectDisposedException"/> when the store closes.</para>
    /// </remarks>
    /// <exception cref="ChangeFeedPositionUnavailableException">
    /// Thrown by the enumeration when a compaction replaced the changes after <paramref name="from"/>; it names the
    /// oldest position available.
    /// </exception>
    /// <exception cref="ArgumentOutOfRangeException">
    /// <paramref name="from"/> is a position the collection has not reached, which a feed would go on from by skipping
    /// changes: past its end (the position of the next change, which is valid), in the snapshot of a compaction that has
    /// not happened, or past the last record of the snapshot. Thrown by the enumeration instead for a position past the
    /// last record of its block, found when the block is read.
    /// </exception>
    [OverloadResolutionPriority(1)]
    public IAsyncEnumerable<Change<TKey, TValue>> Changes(ChangePosition from = default, CancellationToken cancellationToken = default)
    {
        _store.ThrowIfDisposed();
        return _engine.Feed.ReadAsync(from, () => _writer.FlushAsync(), cancellationToken);
    }

    /// <summary>
    /// The committed changes after the position the named cursor <paramref name="cursorName"/> last acknowledged (see
    /// <see cref="Feed"/>), in commit order, then each later one, until <paramref name="cancellationToken"/> is
    /// cancelled: the same as <c>Feed(cursorName).Changes(cancellationToken)</c>. The position is read at this call;
    /// reading acknowledges nothing (<see cref="ChangeFeedCursor{TKey,TValue}.AcknowledgeAsync"/> does). A cursor never
    /// acknowledged starts at <see cref="ChangePosition.Start"/>.
    /// </summary>
    /// <remarks>
    /// Delivers as <see cref="Changes(ChangePosition, CancellationToken)"/> does. Thread safety: any thread; any number
    /// of enumerations may run at once. Nothing is written by reading.
    /// </remarks>
    /// <exception cref="ArgumentException"><paramref name="cursorName"/> is empty, or longer than 128 characters.</exception>
    /// <exception cref="InvalidOperationException">The store was opened read-only (a checkpoint): it keeps no cursors.</exception>
    /// <exception cref="ChangeFeedPositionUnavailableException">
    /// Thrown by the enumeration when a compaction replaced the changes after the cursor's position; it names the cursor
    /// and the oldest position available.
    /// </exception>
    /// <exception cref="ArgumentOutOfRangeException">The cursor's stored position is one the collection has not reached (see <see cref="ChangeFeedCursor{TKey,TValue}.Changes"/>).</exception>
    public IAsyncEnumerable<Change<TKey, TValue>> Changes(string cursorName, CancellationToken cancellationToken = default) =>
        Feed(cursorName).Changes(cancellationToken);

    /// <summary>
    /// The named, durable cursor <paramref name="name"/> of this collection's change feed: its consumer reads
    /// <see cref="ChangeFeedCursor{TKey,TValue}.Changes"/> and acknowledges what it processed, and resumes there after a
    /// restart; it may hold the collection's compaction back, bounded (see
    /// <see cref="ChangeFeedCursor{TKey,TValue}.HoldCompactionAsync"/>). Cursors are kept in the store's own collection
    /// <c>$cursors</c>, made at the first call.
    /// </summary>
    /// <remarks>Thread safety: any thread; every call with one name works on the same stored position.</remarks>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty, or longer than 128 characters.</exception>
    /// <exception cref="InvalidOperationException">The store was opened read-only (a checkpoint): it keeps no cursors.</exception>
    public ChangeFeedCursor<TKey, TValue> Feed(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(name.Length, 128, nameof(name));
        _store.ThrowIfDisposed();
        _store.ThrowIfReadOnly();
        return new ChangeFeedCursor<TKey, TValue>(this, _store.FeedCursors(), _store.FeedCursorGates, name);
    }
}
