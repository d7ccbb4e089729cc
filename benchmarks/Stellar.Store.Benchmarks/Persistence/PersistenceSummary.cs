using System.Globalization;
using System.Text;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Units;

namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// The <c>persistence</c> verb's runs summarised: each figure the median over the runs with its distribution-free
/// 95% interval (<see cref="Figure"/>), and each goal's ratio taken per round (our row and the peer row of the same
/// pairing that ran in that round), then summarised the same way.
/// </summary>
internal static class PersistenceSummary
{
    /// <summary>The throughput goal: our events/s over Akka.Persistence.Sql on SQLite, at the same durability.</summary>
    public const double PersistGoal = 10;

    /// <summary>The recovery goal: Akka.Persistence.Sql on SQLite's recovery time over ours.</summary>
    public const double RecoveryGoal = 5;

    /// <summary>
    /// The per-round ratio of <paramref name="ours"/> to <paramref name="peer"/> in <paramref name="workload"/> with
    /// <paramref name="actors"/> actors: events/s over events/s (for recovery the same thing: the peer's time over
    /// ours). Null when either row was not measured.
    /// </summary>
    public static Figure? Ratio(IReadOnlyList<PersistenceRow> rows, string workload, int actors, string ours, string peer)
    {
        var values = Select(rows, workload, actors, ours)
            .Join(Select(rows, workload, actors, peer), r => r.Run, r => r.Run, (o, p) => o.EventsPerSecond / p.EventsPerSecond)
            .ToList();
        return values.Count == 0 ? null : Figure.Of(values);
    }

    public static string ToMarkdown(IReadOnlyList<PersistenceRow> rows, EventSerialization serialization)
    {
        var runs = rows.Select(r => r.Run).Distinct().Count();
        var journals = rows.Select(r => r.Journal).Distinct().ToList();
        var md = new StringBuilder();
        md.AppendLine(CultureInfo.InvariantCulture, $"Persist: every actor persists its events with `Persist`, one at a time, after {PersistenceMix.WarmUpEvents} untimed events each; the time runs from the first command to the last actor's reply. Recovery: one actor's events, written untimed, recovered after a restart of the actor system on the same files (the journal started first by another actor's empty recovery; the in-memory journal recovers a new incarnation in the same system). Events serialized by {(serialization == EventSerialization.Binary ? $"a binary serializer of their own (`{nameof(ScoredSerializer)}`, {ScoredSerializer.Size} bytes)" : "Akka's default serializer for objects (Newtonsoft JSON)")}, the same in every row. {runs} run(s) in rounds; each cell is the median over the runs with its 95% interval in brackets (distribution-free, from the runs' order statistics; none with one run).");
        md.AppendLine();
        md.AppendLine("| Workload | Actors | Events per actor | Journal | Pairing | Events/s | µs per event |");
        md.AppendLine("|---|---:|---:|---|---|---:|---:|");
        foreach (var (workload, actors) in Workloads(rows))
        {
            foreach (var journal in journals)
            {
                var selected = Select(rows, workload, actors, journal).ToList();
                if (selected.Count == 0)
                {
                    continue;
                }

                var perActor = selected[0].Events / actors;
                md.AppendLine(CultureInfo.InvariantCulture,
                    $"| {workload} | {actors:N0} | {perActor:N0} | {journal} | {selected[0].Pairing} | {Figure.Of(selected.Select(r => r.EventsPerSecond).ToList())} | {Micro(Figure.Of(selected.Select(r => r.Seconds * 1e6 / r.Events).ToList()))} |");
            }
        }

        md.AppendLine();
        md.AppendLine("| Goal | Pairing | Ours / peer, per round | Status |");
        md.AppendLine("|---|---|---:|---|");
        foreach (var (ours, peer) in JournalKinds.Goals)
        {
            var pairing = rows.FirstOrDefault(r => r.Journal == peer)?.Pairing ?? "";
            foreach (var actors in PersistenceMix.ActorCounts)
            {
                var ratio = Ratio(rows, PersistenceMix.Persist, actors, ours, peer);
                md.AppendLine(CultureInfo.InvariantCulture, $"| Persist throughput, {actors:N0} actor(s): {ours} ≥ {PersistGoal:0}× {peer} | {pairing} | {UnitSummary.Decimal(ratio)} | {Status(ratio, PersistGoal)} |");
            }

            var recovery = Ratio(rows, PersistenceMix.Recovery, 1, ours, peer);
            md.AppendLine(CultureInfo.InvariantCulture, $"| Recovery of {PersistenceMix.RecoveryEvents:N0} events: {ours} ≥ {RecoveryGoal:0}× faster than {peer} | {pairing} | {UnitSummary.Decimal(recovery)} | {Status(recovery, RecoveryGoal)} |");
        }

        var sqlite = rows.Where(r => r.Sqlite.Length > 0).Select(r => $"{r.Journal}: {r.Sqlite}").Distinct().Take(4).ToList();
        if (sqlite.Count > 0)
        {
            md.AppendLine();
            md.AppendLine(CultureInfo.InvariantCulture, $"SQLite settings read back on the plugin's connections (every connection is checked; a run with any other setting fails), for example: {string.Join("; ", sqlite)}.");
        }

        return md.ToString();
    }

    private static string Status(Figure? ratio, double target) =>
        ratio is null ? "not measured (no such row in this run)" : UnitSummary.Judge(ratio, target);

    private static IEnumerable<(string Workload, int Actors)> Workloads(IReadOnlyList<PersistenceRow> rows) =>
        rows.Select(r => (r.Workload, r.Actors)).Distinct().OrderBy(w => w.Workload == PersistenceMix.Recovery).ThenBy(w => w.Actors);

    private static IEnumerable<PersistenceRow> Select(IReadOnlyList<PersistenceRow> rows, string workload, int actors, string journal) =>
        rows.Where(r => r.Workload == workload && r.Actors == actors && r.Journal == journal);

    private static string Micro(Figure f) => f.Samples < 2
        ? f.Median.ToString("N1", CultureInfo.InvariantCulture)
        : string.Create(CultureInfo.InvariantCulture, $"{f.Median:N1} [{f.Low:N1}–{f.High:N1}]");
}
