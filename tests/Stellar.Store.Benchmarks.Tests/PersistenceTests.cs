using System.Globalization;
using System.Text.RegularExpressions;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Persistence;

namespace Stellar.Store.Benchmarks.Tests;

/// <summary>
/// Keeps the <c>persistence</c> verb from rotting (it runs dry on every journal, real files and real plugins), and
/// checks that its workload is sound: every journal replays exactly the events the actors persisted, in order.
/// </summary>
[Collection(DryRunCollection.Name)]
public sealed class PersistenceTests : IDisposable
{
    private readonly string _results = Path.Combine(Path.GetTempPath(), "stellar-bench-tests", Guid.NewGuid().ToString("n"));

    public PersistenceTests()
    {
        Environment.SetEnvironmentVariable(Scale.DryVariable, "1");
    }

    [Fact]
    public void Persistence_WhenRunDry_MeasuresEveryRowInEveryRunAndJudgesEveryGoal()
    {
        PersistenceMix.Run(_results, runs: 2);

        var rows = PersistenceRow.Load(Path.Combine(_results, "persistence.csv"));
        string[] journals = ["Stellar_Fsync", "Sql_SqliteFull", "Stellar_WriteThrough", "Sql_SqliteNormal", "InMemory"];
        foreach (var run in new[] { 1, 2 })
        {
            foreach (var journal in journals)
            {
                foreach (var actors in PersistenceMix.ActorCounts)
                {
                    var row = Assert.Single(rows, r => r.Run == run && r.Journal == journal && r.Workload == PersistenceMix.Persist && r.Actors == actors);
                    Assert.Equal((long)actors * PersistenceMix.EventsPerActor(actors), row.Events);
                    Assert.True(row.Seconds > 0, $"{journal} with {actors} actors took no time");
                }

                var recovery = Assert.Single(rows, r => r.Run == run && r.Journal == journal && r.Workload == PersistenceMix.Recovery);
                Assert.Equal(PersistenceMix.RecoveryEvents, recovery.Events);
            }
        }

        // Every row has its durability pairing, and the SQL rows say what SQLite reported on the plugin's connections.
        Assert.All(rows.Where(r => r.Journal.StartsWith("Stellar_Fsync", StringComparison.Ordinal) || r.Journal == "Sql_SqliteFull"), r => Assert.Equal("fsync", r.Pairing));
        Assert.All(rows.Where(r => r.Journal is "Stellar_WriteThrough" or "Sql_SqliteNormal"), r => Assert.Equal("os-write", r.Pairing));
        Assert.All(rows.Where(r => r.Journal == "Sql_SqliteFull"), r => Assert.StartsWith("journal_mode=wal synchronous=2 on ", r.Sqlite, StringComparison.Ordinal));
        Assert.All(rows.Where(r => r.Journal == "Sql_SqliteNormal"), r => Assert.StartsWith("journal_mode=wal synchronous=1 on ", r.Sqlite, StringComparison.Ordinal));
        Assert.All(rows.Where(r => !r.Journal.StartsWith("Sql_", StringComparison.Ordinal)), r => Assert.Empty(r.Sqlite));

        // Every goal is judged from both rounds, none left unmeasured.
        var markdown = File.ReadAllText(Path.Combine(_results, "persistence.md"));
        Assert.DoesNotContain("not measured", markdown, StringComparison.Ordinal);
        Assert.Equal(8, Regex.Count(markdown, @"\| (fsync|os-write) \| [\d.,]+ \[[\d.,]+–[\d.,]+\] \| (met|\*\*MISSED\*\*|inconclusive)"));

        // The goal's ratio is ours over the peer's events/s, per round: recomputed here from the CSV, the median of
        // two rounds is their mean and the interval runs from the smaller to the larger.
        var perRound = new[] { 1, 2 }.Select(run =>
            Assert.Single(rows, r => r.Run == run && r.Journal == "Stellar_Fsync" && r.Workload == PersistenceMix.Recovery).EventsPerSecond
            / Assert.Single(rows, r => r.Run == run && r.Journal == "Sql_SqliteFull" && r.Workload == PersistenceMix.Recovery).EventsPerSecond).ToArray();
        var ratio = string.Create(CultureInfo.InvariantCulture, $"{perRound.Average():N2} [{perRound.Min():N2}–{perRound.Max():N2}]");
        Assert.Contains($"faster than Sql_SqliteFull | fsync | {ratio} |", markdown, StringComparison.Ordinal);
    }

    [Fact]
    public void PersistAndReplay_OnEveryJournal_ReplaysEveryEventEachActorPersistedInOrder()
    {
        const int Actors = 5;
        const int Events = 7;

        // Independent model: actor i's k-th event is player i, sequence k, and points from this formula.
        var expected = Enumerable.Range(0, Actors)
            .Select(i => Enumerable.Range(1, Events).Select(k => new Scored(i, k, (int)(((i * 7_919L) + (k * 104_729L)) % 1_000))).ToList())
            .ToList();
        // One event per write (Persist, the throughput rows) and three (PersistAll, as the recovery row fills its
        // journal), with the events' binary serializer; and one per write through Akka's default JSON serializer.
        var cases = JournalKinds.All.SelectMany(j => new[] { (j, 1, EventSerialization.Binary), (j, 3, EventSerialization.Binary), (j, 1, EventSerialization.Json) });
        foreach (var (journal, perWrite, serialization) in cases)
        {
            var recovered = PersistenceMix.PersistAndReplay(journal, Actors, Events, perWrite, serialization);
            Assert.Equal(Actors, recovered.Count);
            for (var i = 0; i < Actors; i++)
            {
                var actor = Assert.Single(recovered, r => r.PersistenceId == $"player-{i}");
                Assert.True(actor.Replayed is not null && expected[i].SequenceEqual(actor.Replayed), $"{journal.Name}, {perWrite} per write, {serialization}, replayed other events for player-{i}: {string.Join(", ", actor.Replayed ?? [])}");
                Assert.Equal(Events, actor.LastSequenceNr);
                Assert.Equal(expected[i].Sum(e => (long)e.Points), actor.Points);
            }
        }
    }

    [Fact]
    public void SharedHocon_OfTheBinaryRun_BindsTheEventsToTheirSerializerWhichRoundTripsThem()
    {
        using var system = Akka.Actor.ActorSystem.Create("serialization", JournalKinds.Shared(EventSerialization.Binary));
        var scored = new Scored(int.MaxValue, long.MaxValue - 1, -7);
        var serializer = system.Serialization.FindSerializerFor(scored);
        Assert.IsType<ScoredSerializer>(serializer);
        var bytes = serializer.ToBinary(scored);
        Assert.Equal(ScoredSerializer.Size, bytes.Length);
        Assert.Equal(scored, serializer.FromBinary<Scored>(bytes));

        // Without the binding the events go through Akka's default serializer for objects.
        using var json = Akka.Actor.ActorSystem.Create("json", JournalKinds.Shared(EventSerialization.Json));
        Assert.IsNotType<ScoredSerializer>(json.Serialization.FindSerializerFor(scored));
    }

    public void Dispose()
    {
        if (Directory.Exists(_results))
        {
            Directory.Delete(_results, recursive: true);
        }
    }
}
