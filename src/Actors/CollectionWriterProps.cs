using Akka.Actor;

namespace Stellar.Store.Actors;

/// <summary>
/// Props for <see cref="CollectionWriter{TWrite,TResult}"/>, with the write and result types inferred from the sink.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal static class CollectionWriterProps
{
    /// <summary>Props for a writer over <paramref name="sink"/> with no byte bound on a group.</summary>
    public static Props Create<TWrite, TResult>(ICommitSink<TWrite, TResult> sink) => Create(sink, long.MaxValue);

    /// <summary>
    /// Props for a writer over <paramref name="sink"/> whose groups take at most <paramref name="maxGroupBytes"/> (at least
    /// one write), and that shows its fault in <paramref name="status"/> when one is given.
    /// </summary>
    public static Props Create<TWrite, TResult>(ICommitSink<TWrite, TResult> sink, long maxGroupBytes, WriterStatus? status = null) =>
        Props.Create(() => new CollectionWriter<TWrite, TResult>(sink, maxGroupBytes, status));
}
