using System.Diagnostics;
using Akka.Actor;
using Stellar.Store.Benchmarks.Infrastructure;

namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// The <c>persistence</c> verb, a measured run rather than a BenchmarkDotNet benchmark: each row needs an actor
/// system, a fresh journal and up to 1,000 recovered actors before its timed part, and what is measured is many
/// actors' throughput together. Workloads, on every journal of <see cref="JournalKinds"/>:
/// <list type="bullet">
/// <item><c>Persist</c> with 1, 100 and 1,000 actors: every actor persists its events with <c>Persist</c>, one at a
/// time (the next from the handler of the previous), as an actor handling commands does; after an untimed warm-up of
/// <see cref="WarmUpEvents"/> events per actor, the time runs from the first command to the last actor's reply.</item>
/// <item><c>Recovery</c>: one actor's <see cref="RecoveryEvents"/> events, written untimed, then the actor system is
/// restarted on the same files, the journal started by recovering another (empty) actor, and the time runs from
/// creating the actor to its answer after recovery. The in-memory journal, whose events do not outlive the system,
/// recovers a new incarnation of the actor in the same system instead: the floor of what Akka's replay costs.</item>
/// </list>
/// Runs go in rounds (every row once per round, the journals in an order that rotates from round to round), so a
/// slow minute of the machine falls on all rows alike, and the ratios are taken per round.
/// </summary>
internal static class PersistenceMix
{
    /// <summary>The workload names.</summary>
    public const string Persist = "Persist", Recovery = "Recovery";

    /// <summary>Events every actor persists untimed before the timed part: the JIT, the journal's first writes.</summary>
    public const int WarmUpEvents = 2;

    /// <summary>Events per <c>PersistAll</c> when the recovery row fills its journal (untimed).</summary>
    public const int FillPerWrite = 100;

    /// <summary>The actor counts of the <c>Persist</c> workload (fewer in a dry run, which only checks that every row runs).</summary>
    public static IReadOnlyList<int> ActorCounts => Scale.Dry ? [1, 10, 50] : [1, 100, 1_000];

    /// <summary>Events of the actor the <c>Recovery</c> workload recovers.</summary>
    public static int RecoveryEvents => Scale.Dry ? 100 : 10_000;

    /// <summary>Runs of every row in a default run: six, the fewest whose min–max covers the median at 95%.</summary>
    public static int DefaultRuns => Scale.Dry ? 2 : 6;

    /// <summary>Events each actor persists in the timed part: about 2,000 to 10,000 per row, so a row takes seconds on the slowest journal.</summary>
    public static int EventsPerActor(int actors) => Scale.Dry ? 2 : actors switch
    {
        1 => 2_000,
        <= 100 => 50,
        _ => 10,
    };

    /// <summary>
    /// Runs every row <paramref name="runs"/> times, in rounds, with the events serialized as <paramref name="serialization"/>
    /// says; writes every run to <c>persistence.csv</c> and the medians with their intervals and the ratios against the
    /// goals to <c>persistence.md</c> (<c>persistence-json.*</c> for a run with Akka's default JSON serializer).
    /// </summary>
    public static List<PersistenceRow> Run(string resultsFolder, int runs, EventSerialization serialization = EventSerialization.Binary, IReadOnlyList<JournalKind>? journals = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(runs, 1);
        journals ??= JournalKinds.All;
        var shared = JournalKinds.Shared(serialization);
        var rows = new List<PersistenceRow>();
        for (var run = 1; run <= runs; run++)
        {
            var order = journals.Skip((run - 1) % journals.Count).Concat(journals.Take((run - 1) % journals.Count)).ToList();
            foreach (var actors in ActorCounts)
            {
                foreach (var journal in order)
                {
                    rows.Add(MeasurePersist(run, journal, shared, actors));
                    Console.WriteLine($"// persistence, run {run} of {runs}: {rows[^1]}");
                }
            }

            foreach (var journal in order)
            {
                rows.Add(MeasureRecovery(run, journal, shared));
                Console.WriteLine($"// persistence, run {run} of {runs}: {rows[^1]}");
            }
        }

        Directory.CreateDirectory(resultsFolder);
        var name = serialization == EventSerialization.Binary ? "persistence" : "persistence-json";
        File.WriteAllText(Path.Combine(resultsFolder, $"{name}.csv"), PersistenceRow.ToCsv(rows));
        File.WriteAllText(Path.Combine(resultsFolder, $"{name}.md"), PersistenceSummary.ToMarkdown(rows, serialization));
        return rows;
    }

    /// <summary>
    /// Has <paramref name="actors"/> actors persist <paramref name="eventsPerActor"/> events each into a fresh journal,
    /// <paramref name="perWrite"/> at a time (1: the <c>Persist</c> workload; more: <c>PersistAll</c>, as the recovery
    /// row fills its journal), and recovers every actor in a restarted system, keeping the replayed events: what the
    /// soundness test compares with its model.
    /// </summary>
    public static IReadOnlyList<Recovered> PersistAndReplay(JournalKind journal, int actors, int eventsPerActor, int perWrite = 1, EventSerialization serialization = EventSerialization.Binary)
    {
        var shared = JournalKinds.Shared(serialization);
        var directory = Paths.FreshDirectory(Paths.StoresRoot, $"persistence-{Guid.NewGuid():n}");
        try
        {
            using (var writing = journal.Start(directory, "writing", shared))
            {
                var players = Spawn(writing.System, actors, keepReplayed: false);
                WaitAll(players.Select(p => p.Ask<EventsPersisted>(new PersistEvents(eventsPerActor, perWrite))));
                if (!journal.SurvivesRestart)
                {
                    // Nothing outlives this system: replay in it, from new incarnations of the same persistence ids.
                    foreach (var player in players)
                    {
                        Wait(player.GracefulStop(TimeSpan.FromMinutes(1)));
                    }

                    return WaitAll(Spawn(writing.System, actors, keepReplayed: true, "replay").Select(p => p.Ask<Recovered>(new ReportRecovery())));
                }
            }

            using var restarted = journal.Start(directory, "restarted", shared);
            return WaitAll(Spawn(restarted.System, actors, keepReplayed: true).Select(p => p.Ask<Recovered>(new ReportRecovery())));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private static PersistenceRow MeasurePersist(int run, JournalKind journal, string shared, int actors)
    {
        var directory = Paths.FreshDirectory(Paths.StoresRoot, $"persistence-{Guid.NewGuid():n}");
        try
        {
            using var system = journal.Start(directory, "persist", shared);
            var players = Spawn(system.System, actors, keepReplayed: false);
            WaitAll(players.Select(p => p.Ask<Recovered>(new ReportRecovery())));
            WaitAll(players.Select(p => p.Ask<EventsPersisted>(new PersistEvents(WarmUpEvents))));
            var perActor = EventsPerActor(actors);
            var clock = Stopwatch.StartNew();
            var replies = WaitAll(players.Select(p => p.Ask<EventsPersisted>(new PersistEvents(perActor))));
            var seconds = clock.Elapsed.TotalSeconds;
            if (replies.Any(r => r.Events != WarmUpEvents + perActor))
            {
                throw new InvalidOperationException($"{journal.Name}: an actor holds another number of events than it persisted.");
            }

            return new PersistenceRow(run, journal.Name, journal.Pairing, Persist, actors, (long)actors * perActor, seconds, Checked(journal, system));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private static PersistenceRow MeasureRecovery(int run, JournalKind journal, string shared)
    {
        var directory = Paths.FreshDirectory(Paths.StoresRoot, $"persistence-{Guid.NewGuid():n}");
        try
        {
            var filling = journal.Start(directory, "filling", shared);
            JournalSystem system;
            try
            {
                var filler = filling.System.ActorOf(ScoringActor.Props("recovering", 0), "recovering");
                Wait(filler.Ask<EventsPersisted>(new PersistEvents(RecoveryEvents, FillPerWrite)));
                if (journal.SurvivesRestart)
                {
                    filling.Dispose();
                    system = journal.Start(directory, "restarted", shared);
                }
                else
                {
                    // Nothing outlives this system: the floor row recovers a new incarnation in the same one.
                    Wait(filler.GracefulStop(TimeSpan.FromMinutes(1)));
                    system = filling;
                }
            }
            catch
            {
                filling.Dispose();
                throw;
            }

            using (system)
            {
                Wait(system.System.ActorOf(ScoringActor.Props("warm-up", 1), "warm-up").Ask<Recovered>(new ReportRecovery()));
                var clock = Stopwatch.StartNew();
                var recovered = Wait(system.System.ActorOf(ScoringActor.Props("recovering", 0), "recovered").Ask<Recovered>(new ReportRecovery()));
                var seconds = clock.Elapsed.TotalSeconds;
                if (recovered.Events != RecoveryEvents || recovered.LastSequenceNr != RecoveryEvents)
                {
                    throw new InvalidOperationException($"{journal.Name}: the actor recovered {recovered.Events} events up to {recovered.LastSequenceNr}, not {RecoveryEvents}.");
                }

                return new PersistenceRow(run, journal.Name, journal.Pairing, Recovery, 1, RecoveryEvents, seconds, Checked(journal, system));
            }
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>
    /// Actors for the persistence ids <c>player-0</c> to <c>player-{actors - 1}</c>. Their actor names carry
    /// <paramref name="incarnation"/>: a stopped actor's name is free again only once its parent has processed its
    /// termination, which may come after the stop's own acknowledgement.
    /// </summary>
    private static IActorRef[] Spawn(ActorSystem system, int actors, bool keepReplayed, string incarnation = "first") =>
        Enumerable.Range(0, actors).Select(i => system.ActorOf(ScoringActor.Props($"player-{i}", i, keepReplayed), $"player-{i}-{incarnation}")).ToArray();

    /// <summary>What SQLite reported on the plugin's connections; a run whose settings did not take effect fails.</summary>
    private static string Checked(JournalKind journal, JournalSystem system)
    {
        if (system.Pragmas is not { } pragmas)
        {
            return string.Empty;
        }

        if (pragmas.Opened == 0 || pragmas.Mismatches > 0)
        {
            throw new InvalidOperationException($"{journal.Name}: of {pragmas.Opened} connections the plugin opened, {pragmas.Mismatches} reported other settings than WAL + synchronous={pragmas.Synchronous} (last: {pragmas.Reported}).");
        }

        return $"{pragmas.Reported.Replace(", ", " ", StringComparison.Ordinal)} on {pragmas.Opened} connections";
    }

    private static T Wait<T>(Task<T> task) => task.GetAwaiter().GetResult();

    private static void Wait(Task task) => task.GetAwaiter().GetResult();

    private static T[] WaitAll<T>(IEnumerable<Task<T>> tasks) => Task.WhenAll(tasks).GetAwaiter().GetResult();
}
