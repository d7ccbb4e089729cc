using System.Runtime.CompilerServices;
using Stellar.Store.Feed;

namespace Stellar.Store;

/// <summary>
/// A named, durable consumer of a collection's change feed (see <see cref="Collection{TKey,TValue}.Feed"/>): its
/// <see cref="Changes"/> start after the position it last acknowledged, across restarts of the store. It may hold the
/// collection's compaction back (<see cref="HoldCompactionAsync"/>), so that the history it has not acknowledged stays
/// on disk, up to a bound.
/// </summary>
/// <remarks>
/// <para>Exactly once: a consumer that processes a change and then acknowledges its position sees each change once
/// when its processing and the acknowledgement both stand or fall together (for example when both are writes to this
/// store; acknowledge after the processing's own write completed). A consumer stopped after processing and before its
/// acknowledgement completed gets the changes after its last acknowledged position again: processing that cannot be
/// undone should be idempotent for that window. Acknowledging the position of a change whose
/// <see cref="Change{TKey,TValue}.EndsUnit"/> is set never leaves a unit half done.</para>
/// <para>The position and the hold are kept in the store's own collection <c>$cursors</c>, written like any record: as
/// durable as the store's <see cref="Durability"/> promises when the task of <see cref="AcknowledgeAsync"/>,
/// <see cref="HoldCompactionAsync"/>, <see cref="ReleaseCompactionAsync"/> or <see cref="DeleteAsync"/> completes.</para>
/// <para>Thread safety: any thread; a cursor is meant for one consumer at a time, which acknowledges in order (an
/// acknowledgement of a position not after the stored one is ignored, so a cursor does not move back). Calls that
/// change the cursor (<see cref="AcknowledgeAsync"/>, <see cref="HoldCompactionAsync"/>,
/// <see cref="ReleaseCompactionAsync"/>, <see cref="DeleteAsync"/>) on one name run one at a time, from any threads and
/// any instances of it, each on what the one before it stored, so calls racing on one cursor all take effect, in the
/// order they ran.</para>
/// </remarks>
/// <typeparam name="TKey">The collection's key type.</typeparam>
/// <typeparam name="TValue">The collection's value type.</typeparam>
public sealed class ChangeFeedCursor<TKey, TValue>
    where TKey : notnull
{
    private readonly Collection<TKey, TValue> _collection;
    private readonly Collection<string, FeedCursorRecord> _cursors;
    private readonly FeedCursorGates _gates;
    private readonly string _id;

    internal ChangeFeedCursor(Collection<TKey, TValue> collection, Collection<string, FeedCursorRecord> cursors, FeedCursorGates gates, string name)
    {
        _collection = collection;
        _cursors = cursors;
        _gates = gates;
        Name = name;
        _id = collection.Name + "/" + name;
    }

    /// <summary>The cursor's name, unique within its collection.</summary>
    public string Name { get; }

    /// <summary>
    /// The last acknowledged position, as stored (<see cref="ChangePosition.Start"/> for a cursor never acknowledged):
    /// where <see cref="Changes"/> starts. Never blocks.
    /// </summary>
    public ChangePosition Position =>
        _cursors.TryGet(_id, out var stored) ? ChangePosition.Parse(stored.Position) : ChangePosition.Start;

    /// <summary>
    /// The bound of the cursor's hold on compaction, as stored: the most bytes of shard files the hold may keep from
    /// compaction (see <see cref="HoldCompactionAsync"/>); null when the cursor holds nothing. Never blocks.
    /// </summary>
    public long? MaxHeldBytes => _cursors.TryGet(_id, out var stored) ? stored.HoldBytes : null;

    /// <summary>
    /// The collection's changes after <see cref="Position"/> as it is at this call, then each later one,
    /// as <see cref="Collection{TKey,TValue}.Changes(ChangePosition, CancellationToken)"/> delivers them. Reading
    /// acknowledges nothing.
    /// </summary>
    /// <exception cref="ChangeFeedPositionUnavailableException">
    /// Thrown by the enumeration when a compaction replaced the changes after the acknowledged position (the cursor held
    /// no compaction, or its hold passed its bound); it names the cursor and the oldest position available.
    /// Acknowledging <see cref="ChangeFeedPositionUnavailableException.Oldest"/> resumes from there.
    /// </exception>
    /// <exception cref="ArgumentOutOfRangeException">
    /// The stored position is one the collection has not reached (see
    /// <see cref="Collection{TKey,TValue}.Changes(ChangePosition, CancellationToken)"/>): acknowledged by a build that did
    /// not refuse such positions, or kept while a power loss took the collection's last blocks (<see cref="Durability.Buffered"/>). <see cref="DeleteAsync"/> starts
    /// the cursor again.
    /// </exception>
    public IAsyncEnumerable<Change<TKey, TValue>> Changes(CancellationToken cancellationToken = default) =>
        NamingThisCursor(_collection.Changes(Position, cancellationToken), cancellationToken);

    /// <summary>
    /// Records <paramref name="position"/> (a delivered change's <see cref="Change{TKey,TValue}.Position"/>) as the
    /// point after which the next <see cref="Changes"/> starts. When the task completes the position is as durable as
    /// the store's mode promises; a position not after the stored one changes nothing. A hold is kept as it is.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="position"/> is <see cref="ChangePosition.Now"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException">
    /// <paramref name="position"/> is one the collection has not reached: past its end, in the snapshot of a compaction
    /// that has not happened, or past the last record of the snapshot. Nothing is stored: since a cursor never moves
    /// back, such a position would otherwise make its feed pass over every change committed before it.
    /// </exception>
    public async Task AcknowledgeAsync(ChangePosition position, CancellationToken cancellationToken = default)
    {
        if (position.IsNow)
        {
            throw new ArgumentException("Acknowledge a delivered change's position, not ChangePosition.Now.", nameof(position));
        }

        _collection.Engine.Feed.ThrowIfNotReached(position, nameof(position));

        await UpdateAsync(stored => position > PositionOf(stored) ? new FeedCursorRecord(_id, position.ToString(), stored?.HoldBytes) : stored,
            cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Makes the collection's compaction keep the history after this cursor's position, so that its consumer reads every
    /// change even when it lags behind compactions: a compaction replaces only shards whose every change the cursor
    /// acknowledged (all of the history while it stands at <see cref="ChangePosition.Start"/> or in a compaction's
    /// snapshot). Bounded: when the shard files from the one holding the cursor's position to the newest come to more
    /// than <paramref name="maxHeldBytes"/>, a compaction goes on as if the cursor held nothing, and the cursor's next
    /// <see cref="Changes"/> throws <see cref="ChangeFeedPositionUnavailableException"/> if it replaced the cursor's
    /// position; the store logs that compaction's passing of the hold as <see cref="StoreLogEvents.CompactionHoldPassed"/>
    /// (collection, cursor, position, bytes and bound) and counts it in the metric
    /// <c>stellar.store.compaction.holds_passed</c>. Replaces an earlier bound.
    /// </summary>
    /// <remarks>
    /// The hold is stored with the cursor, as durable as the store's mode promises when the task completes, and holds
    /// every compaction that begins after that, across restarts, until <see cref="ReleaseCompactionAsync"/> or
    /// <see cref="DeleteAsync"/>. A compaction begins on the collection's writer, in order with its writes, and reads
    /// the holds there: one requested before the task completed but begun after it is held too. Only a compaction that
    /// had begun before the task completed may still replace history after the position.
    /// </remarks>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxHeldBytes"/> is not positive.</exception>
    public async Task HoldCompactionAsync(long maxHeldBytes, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxHeldBytes);
        await UpdateAsync(stored => new FeedCursorRecord(_id, PositionOf(stored).ToString(), maxHeldBytes), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Ends the cursor's hold on compaction (see <see cref="HoldCompactionAsync"/>), keeping its position: compactions
    /// that begin after the task completes may replace history it has not acknowledged. Does nothing when it holds none.
    /// </summary>
    public async Task ReleaseCompactionAsync(CancellationToken cancellationToken = default)
    {
        await UpdateAsync(stored => stored is { HoldBytes: not null } ? stored with { HoldBytes = null } : stored, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Removes the cursor from the store: its position and its hold on compaction. When the task completes that is as
    /// durable as the store's mode promises; the name then stands for a new cursor at <see cref="ChangePosition.Start"/>.
    /// Returns whether there was a stored cursor to remove.
    /// </summary>
    public Task<bool> DeleteAsync(CancellationToken cancellationToken = default) =>
        _gates.RunAsync(_id, () => _cursors.DeleteAsync(_id, cancellationToken), cancellationToken);

    /// <summary>The stored position of <paramref name="stored"/>; <see cref="ChangePosition.Start"/> for a cursor not stored.</summary>
    private static ChangePosition PositionOf(FeedCursorRecord? stored) => stored is null ? ChangePosition.Start : ChangePosition.Parse(stored.Position);

    /// <summary>
    /// Reads the stored record (null: none), and stores what <paramref name="change"/> makes of it unless that is the same
    /// record, alone among the updates of this cursor (see <see cref="FeedCursorGates"/>): the next update reads what this
    /// one stored.
    /// </summary>
    private async Task UpdateAsync(Func<FeedCursorRecord?, FeedCursorRecord?> change, CancellationToken cancellationToken) =>
        await _gates.RunAsync(_id, async () =>
        {
            var stored = _cursors.TryGet(_id, out var found) ? found : null;
            if (change(stored) is { } updated && !ReferenceEquals(updated, stored))
            {
                // Cancellation ends only the wait for the writer's queue: a write once queued is awaited to its outcome,
                // so the next update never starts while this one may still land after it.
                await _cursors.UpsertAsync(updated, cancellationToken).ConfigureAwait(false);
            }

            return true;
        }, cancellationToken).ConfigureAwait(false);

    /// <summary>The changes of a feed from this cursor's position, with this cursor named in an unavailable position's exception.</summary>
    private async IAsyncEnumerable<Change<TKey, TValue>> NamingThisCursor(IAsyncEnumerable<Change<TKey, TValue>> changes,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await using var reading = changes.GetAsyncEnumerator(cancellationToken);
        while (true)
        {
            try
            {
                if (!await reading.MoveNextAsync().ConfigureAwait(false))
                {
                    yield break;
                }
            }
            catch (ChangeFeedPositionUnavailableException e) when (e.Cursor is null)
            {
                throw new ChangeFeedPositionUnavailableException(e.Collection, Name, e.Requested, e.Oldest);
            }

            yield return reading.Current;
        }
    }
}
