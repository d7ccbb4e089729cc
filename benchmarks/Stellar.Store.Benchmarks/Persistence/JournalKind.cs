namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// One journal the persistence benchmark runs against: its row name, its durability pairing, whether its events
/// outlive the actor system (if so, the recovery row restarts the system), and how to start an actor system on it in a
/// directory of its own (arguments: the directory, the actor system's name, and HOCON every row of the run shares,
/// such as the events' serializer). The workload never looks at the journal: rows differ only by what
/// <see cref="Start"/> builds.
/// </summary>
internal sealed record JournalKind(string Name, string Pairing, bool SurvivesRestart, Func<string, string, string, JournalSystem> Start);
