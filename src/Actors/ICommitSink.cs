namespace Stellar.Store.Actors;

/// <summary>
/// The seam between the writer actor and the engine of one collection. The actor owns ordering and grouping;
/// the sink owns the meaning of a write and the file format, which the actor never sees.
/// </summary>
/// <typeparam name="TWrite">The writes the sink understands: the actor carries them without looking inside, so a
/// new kind of write is the sink's type to extend and the compiler's to check, never a runtime type test here.</typeparam>
/// <typeparam name="TResult">What a committed write's caller gets back.</typeparam>
/// <remarks>
/// Thread safety: the writer actor never overlaps two calls, so a sink is single-threaded by contract and takes
/// no locks. <see cref="Stage"/> and <see cref="Discard"/> run on the actor's turn and must be cheap (no I/O);
/// <see cref="CommitAsync"/> and <see cref="FlushAsync"/> run off it.
/// </remarks>
internal interface ICommitSink<in TWrite, TResult>
{
    /// <summary>
    /// Checks a write's preconditions against the collection as it will be once everything staged so far commits,
    /// and stages it into the current group if they hold. Returns null with the value the caller's task gets when
    /// the group commits, or the exception that rejects the write (nothing stored, nothing else affected).
    /// </summary>
    Exception? Stage(TWrite write, out TResult result);

    /// <summary>
    /// Whether <paramref name="write"/> must not share a group with other writes (a change of what later writes are
    /// checked against, such as a new index): the writer ends the group before it and after it, and groups it only with
    /// the writes queued right after it that stand alone too (indexes declared together). On the actor's turn; cheap.
    /// </summary>
    bool StandsAlone(TWrite write) => false;

    /// <summary>
    /// Writes every staged write as one group, makes it as durable as the store's mode promises, and publishes
    /// it to readers. Throws when the outcome is uncertain (an I/O failure); the sink is then unusable. When the group
    /// ends with a round's part, <paramref name="partPlaced"/> is called once, from the thread that writes, with where the
    /// part's blocks went (none for a part without records), after they reached the OS and before they are made durable;
    /// a commit that fails before that point does not call it.
    /// </summary>
    Task CommitAsync(Action<IReadOnlyList<PartBlock>>? partPlaced);

    /// <summary>Drops what was staged (used when the group cannot be committed).</summary>
    void Discard();

    /// <summary>
    /// Drops the round's part staged last, which <see cref="Stage"/> accepted, and nothing staged before it (another
    /// collection rejected the round). On the actor's turn; no I/O.
    /// </summary>
    void Unstage();

    /// <summary>
    /// After <see cref="CommitAsync"/> wrote a group that ends with a round's part, and the round's decision is durable:
    /// makes the part visible to readers of this collection. On the actor's turn; no I/O.
    /// </summary>
    void PublishPart(long round);

    /// <summary>Once the round is visible in every collection: forgets what the part's publish kept for store snapshots.</summary>
    void EndPart();

    /// <summary>Makes everything committed so far durable on the device (fsync).</summary>
    Task FlushAsync();

    /// <summary>
    /// The exception that fails writes once <paramref name="cause"/> (a failed commit or flush) has faulted the
    /// collection: the writes of the failed group, and every write after it until the store is reopened.
    /// </summary>
    Exception Fault(Exception cause);
}
