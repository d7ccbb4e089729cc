namespace Stellar.Store.Actors;

/// <summary>The messages of <see cref="CollectionWriter{TWrite,TResult}"/>. Commands are imperative; replies are outcomes.</summary>
internal static class WriterProtocol
{
    /// <summary>
    /// Command: append <see cref="Append{TWrite,TResult}.Write"/> to the collection. The outcome completes
    /// <see cref="Append{TWrite,TResult}.Completion"/>: its result when committed and published, <c>Rejected</c> as an
    /// exception the sink chose (never stored), <c>Failed</c> as the exception
    /// <see cref="ICommitSink{TWrite,TResult}.Fault"/> gives (outcome uncertain). <see cref="Append{TWrite,TResult}.Bytes"/>
    /// is the write's size as the caller counts it, for the byte bounds; the writer never looks inside.
    /// </summary>
    /// <typeparam name="TWrite">The sink's write type.</typeparam>
    /// <typeparam name="TResult">The sink's result type.</typeparam>
    public sealed record Append<TWrite, TResult>(TWrite Write, long Bytes, TaskCompletionSource<TResult> Completion);

    /// <summary>Command: make everything committed before this message durable (fsync), then complete.</summary>
    public sealed record Flush(TaskCompletionSource<bool> Completion);

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
