namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// Persist <see cref="Count"/> events, <see cref="PerWrite"/> at a time: 1 is <c>Persist</c>, each event awaited before
/// the next is persisted, as an actor handling one command after another does; more is <c>PersistAll</c> of that many
/// (used only to fill a journal untimed). The reply is <see cref="EventsPersisted"/> once the last handler ran.
/// </summary>
public sealed record PersistEvents(int Count, int PerWrite = 1);

/// <summary>The reply to <see cref="PersistEvents"/>: how many events the actor holds now.</summary>
public sealed record EventsPersisted(string PersistenceId, long Events);

/// <summary>Asks the actor for <see cref="Recovered"/>; stashed while it recovers, so the reply comes after recovery.</summary>
public sealed record ReportRecovery;

/// <summary>
/// What the actor recovered: its events, their points, its last sequence number, and the events themselves when it
/// keeps them.
/// </summary>
public sealed record Recovered(string PersistenceId, long Events, long Points, long LastSequenceNr, IReadOnlyList<Scored>? Replayed);
