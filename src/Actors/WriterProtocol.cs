using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>The messages of <see cref="CollectionWriter{TWrite,TResult}"/>. Commands are imperative; replies are outcomes.</summary>
internal static class WriterProtocol
{
    /// <summary>
    /// Command: append <see cref="Queued{TWrite}.Write"/> to the collection. The writer gives the outcome with
    /// <see cref="Append{TWrite,TResult}.Succeed"/> (its result when committed and published) or
    /// <see cref="Append{TWrite,TResult}.Fail"/> (<c>Rejected</c> as an exception the sink chose, never stored;
    /// <c>Failed</c> as the exception <see cref="ICommitSink{TWrite,TResult}.Fault"/> gives, outcome uncertain), which
    /// first run <paramref name="Done"/> once (the handle gives back the write's share of the queue bound, and the write
    /// to its owner) and then complete <see cref="Append{TWrite,TResult}.Task"/>. <see cref="Queued{TWrite}.Bytes"/> is
    /// the write's size as the caller counts it, for the byte bounds; the writer never looks inside.
    /// </summary>
    /// <typeparam name="TWrite">The sink's write type.</typeparam>
    /// <typeparam name="TResult">The sink's result type.</typeparam>
    public sealed record Append<TWrite, TResult>(TWrite Write, long Bytes, Action<Append<TWrite, TResult>>? Done) : Queued<TWrite>(Write, Bytes)
    {
        private readonly TaskCompletionSource<TResult> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _finished;

        /// <summary>The write's outcome, as the writer gives it.</summary>
        public Task<TResult> Task => _completion.Task;

        /// <summary>The write was committed and published with <paramref name="result"/>; nothing happens after the first outcome.</summary>
        public void Succeed(TResult result)
        {
            if (Finish())
            {
                _completion.TrySetResult(result);
            }
        }

        /// <summary>The write failed with <paramref name="failure"/>; nothing happens after the first outcome.</summary>
        public void Fail(Exception failure)
        {
            if (Finish())
            {
                _completion.TrySetException(failure);
            }
        }

        /// <summary>Runs <see cref="Done"/> at the first outcome, before its caller learns it; false after the first.</summary>
        private bool Finish()
        {
            if (Interlocked.Exchange(ref _finished, 1) != 0)
            {
                return false;
            }

            Done?.Invoke(this);
            return true;
        }
    }

    /// <summary>
    /// Command from a <see cref="UnitCoordinator"/>: stage <see cref="Queued{TWrite}.Write"/>, this collection's part of
    /// round <paramref name="Round"/>, as the last write of a group, and answer <see cref="UnitProtocol.PartStaged"/> or
    /// <see cref="UnitProtocol.PartRejected"/>; then hold the group until <see cref="Go"/> or <see cref="Abort"/>.
    /// </summary>
    /// <typeparam name="TWrite">The sink's write type.</typeparam>
    public sealed record Prepare<TWrite>(TWrite Write, long Bytes, IActorRef Coordinator, long Round, int Participant) : Queued<TWrite>(Write, Bytes);

    /// <summary>A write or a round's part, queued in the order it came.</summary>
    /// <typeparam name="TWrite">The sink's write type.</typeparam>
    public abstract record Queued<TWrite>(TWrite Write, long Bytes);

    /// <summary>
    /// Command: every part of the round was staged; commit the held group, answering <see cref="UnitProtocol.PartPlaced"/>
    /// once the part reached the OS and <see cref="UnitProtocol.PartWritten"/> once it is durable.
    /// </summary>
    public sealed record Go(long Round);

    /// <summary>Command: another part of the round was rejected; drop this one from the held group and go on.</summary>
    public sealed record Abort(long Round);

    /// <summary>
    /// Command: the round's decision is durable (<paramref name="Failure"/> null): publish the part and answer
    /// <see cref="UnitProtocol.PartPublished"/>; or it cannot be (another part or the decision failed, so the outcome is
    /// uncertain): fault with <paramref name="Failure"/>.
    /// </summary>
    public sealed record Decide(long Round, Exception? Failure);

    /// <summary>Command: the round is visible in every collection; take writes again.</summary>
    public sealed record Resume(long Round);

    /// <summary>
    /// Command: make everything committed before this message durable (fsync), then complete; <paramref name="Then"/>,
    /// if given, runs with the outcome on the writer's turn that completes it (it must be quick and must not throw).
    /// </summary>
    public sealed record Flush(TaskCompletionSource<bool> Completion, Action<Exception?>? Then = null)
    {
        /// <summary>Completes the flush with <paramref name="failure"/> (null: durable), once; then runs <see cref="Then"/>.</summary>
        public void Complete(Exception? failure)
        {
            if (failure is null ? Completion.TrySetResult(true) : Completion.TrySetException(failure))
            {
                Then?.Invoke(failure);
            }
        }
    }

    /// <summary>Command: finish the group being written, flush, and stop accepting writes.</summary>
    public sealed record Close(TaskCompletionSource<bool> Completion);

    /// <summary>To self, after the first append that found the writer idle: form a group of everything queued by now.</summary>
    internal sealed record StartGroup
    {
        public static readonly StartGroup Instance = new();
    }

    /// <summary>Outcome (to self): the group in flight committed.</summary>
    internal sealed record GroupCommitted;

    /// <summary>Outcome (to self): the group in flight failed; its outcome is uncertain.</summary>
    internal sealed record GroupFailed(Exception Cause);

    /// <summary>Outcome (to self): a flush finished; it covers <paramref name="Flushes"/>.</summary>
    internal sealed record Flushed(IReadOnlyList<Flush> Flushes, Exception? Cause);
}
