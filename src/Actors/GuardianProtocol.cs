using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>The messages of <see cref="StoreGuardian"/>.</summary>
internal static class GuardianProtocol
{
    /// <summary>
    /// Command: start a writer named <paramref name="Name"/>; the reply is its IActorRef, or a <see cref="Status.Failure"/>
    /// with why it could not be started (a writer of that name is still running or stopping).
    /// </summary>
    public abstract record StartWriter(string Name)
    {
        /// <summary>The props of the writer to start, typed by its sink.</summary>
        internal abstract Props WriterProps();
    }

    /// <summary>
    /// Command: start a writer named <paramref name="Name"/> over <paramref name="Sink"/> whose commit groups take at
    /// most <paramref name="MaxGroupBytes"/> (see <see cref="CollectionWriter{TWrite,TResult}"/>), showing its fault in
    /// <paramref name="Status"/> when one is given; the reply is its IActorRef.
    /// </summary>
    /// <typeparam name="TWrite">The sink's write type.</typeparam>
    /// <typeparam name="TResult">The sink's result type.</typeparam>
    public sealed record StartWriter<TWrite, TResult>(string Name, ICommitSink<TWrite, TResult> Sink, long MaxGroupBytes = long.MaxValue, WriterStatus? Status = null)
        : StartWriter(Name)
    {
        /// <inheritdoc />
        internal override Props WriterProps() => CollectionWriterProps.Create(Sink, MaxGroupBytes, Status);
    }

    /// <summary>
    /// Command: stop the writer named <paramref name="Name"/>, if there is one, without finishing what it holds; the reply,
    /// <see cref="WriterStopped"/>, comes once it has stopped and its name can be given to a new writer.
    /// </summary>
    public sealed record StopWriter(string Name);

    /// <summary>Outcome: the writer <see cref="StopWriter"/> named has stopped (or there was none).</summary>
    public sealed record WriterStopped(string Name);
}
