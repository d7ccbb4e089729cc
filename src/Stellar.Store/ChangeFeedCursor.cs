namespace Stellar.Store;

/// <summary>
/// A named, durable consumer of a collection's change feed (see <see cref="Collection{TKey,TValue}.Feed"/>): its
/// <see cref="Changes"/> start after the position it last acknowledged, across restarts of the store.
/// </summary>
/// <remarks>
/// <para>Exactly once: a consumer that processes a change and then acknowledges its position sees each change once
/// when its processing and the acknowledgement both stand or fall together (for example when both are writes to this
/// store; acknowledge after the processing's own write completed). A consumer stopped after processing and before its
/// acknowledgement completed gets the changes after its last acknowledged position again: processing that cannot be
/// undone should be idempotent for that window. Acknowledging the position of a change whose
/// <see cref="Change{TKey,TValue}.EndsUnit"/> is set never leaves a unit half done.</para>
/// <para>The position is kept in the store's own collection <c>$cursors</c>, written like any record: as durable as the
/// store's <see cref="Durability"/> promises when <see cref="AcknowledgeAsync"/> completes.</para>
/// <para>Thread safety: any thread; a cursor is meant for one consumer at a time, which acknowledges in order (an
/// acknowledgement of a position not after the stored one is ignored, so a cursor does not move back).</para>
/// </remarks>
/// <typeparam name="TKey">The collection's key type.</typeparam>
/// <typeparam name="TValue">The collection's value type.</typeparam>
public sealed class ChangeFeedCursor<TKey, TValue>
    where TKey : notnull
{
    private readonly Collection<TKey, TValue> _collection;
    private readonly Collection<string, (string Id, string Position)> _cursors;
    private readonly string _id;

    internal ChangeFeedCursor(Collection<TKey, TValue> collection, Collection<string, (string Id, string Position)> cursors, string name)
    {
        _collection = collection;
        _cursors = cursors;
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
    /// The collection's changes after <see cref="Position"/> as it is at this call, then each later one,
    /// as <see cref="Collection{TKey,TValue}.Changes"/> delivers them. Reading acknowledges nothing.
    /// </summary>
    /// <exception cref="ChangeFeedPositionUnavailableException">
    /// Thrown by the enumeration when a compaction replaced the changes after the acknowledged position.
    /// </exception>
    public IAsyncEnumerable<Change<TKey, TValue>> Changes(CancellationToken cancellationToken = default) =>
        _collection.Changes(Position, cancellationToken);

    /// <summary>
    /// Records <paramref name="position"/> (a delivered change's <see cref="Change{TKey,TValue}.Position"/>) as the
    /// point after which the next <see cref="Changes"/> starts. When the task completes the position is as durable as
    /// the store's mode promises; a position not after the stored one changes nothing.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="position"/> is <see cref="ChangePosition.Now"/>.</exception>
    public async Task AcknowledgeAsync(ChangePosition position, CancellationToken cancellationToken = default)
    {
        if (position.IsNow)
        {
            throw new ArgumentException("Acknowledge a delivered change's position, not ChangePosition.Now.", nameof(position));
        }

        if (position > Position)
        {
            await _cursors.UpsertAsync((_id, position.ToString()), cancellationToken).ConfigureAwait(false);
        }
    }
}
