using Akka.Actor;
using Akka.Persistence.Query;
using Akka.Streams.Dsl;
using Akka.Streams.TestKit;
using Stellar.Store.Persistence.Storage;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>
/// Live queries whose consumer fell behind while a compaction replaced the history their change feed had still to
/// read: each goes on from the log, and delivers every event once, in order, against the events the test persisted.
/// </summary>
public sealed class LiveQueryCompactionTests(ITestOutputHelper output) : QuerySpec(PluginTestConfig.NewDirectory(), nameof(LiveQueryCompactionTests), output)
{
    private const int Before = 5;
    private const int After = 400;

    [Fact]
    public async Task EventsByPersistenceId_GoesOnAfterACompactionPassedItsTail()
    {
        var queries = (IEventsByPersistenceIdQuery)ReadJournal;
        var probe = queries.EventsByPersistenceId("p", 0, long.MaxValue).Select(x => x.Event).RunWith(this.SinkProbe<object>(), Materializer);
        ExpectExactly(probe, await PersistPastACompactionAsync("p", probe));
    }

    [Fact]
    public async Task EventsByTag_GoesOnAfterACompactionPassedItsTail()
    {
        var queries = (IEventsByTagQuery)ReadJournal;
        var probe = queries.EventsByTag("green", NoOffset.Instance).Select(x => x.Event).RunWith(this.SinkProbe<object>(), Materializer);
        ExpectExactly(probe, await PersistPastACompactionAsync("t", probe, "green apple"));
    }

    [Fact]
    public async Task PersistenceIds_GoesOnAfterACompactionPassedItsTail()
    {
        var queries = (IPersistenceIdsQuery)ReadJournal;
        var probe = queries.PersistenceIds().RunWith(this.SinkProbe<string>(), Materializer);
        Setup("first", 1);
        probe.Request(1).ExpectNext("first");

        // Many persistence ids, more than the query reads ahead, so that the tail stops in the middle of them.
        var ids = Enumerable.Range(0, After).Select(i => $"id-{i:D4}").ToList();
        foreach (var id in ids)
        {
            Setup(id, 1);
        }

        await CompactJournalAsync();
        var seen = new List<string>();
        for (var i = 0; i < ids.Count; i++)
        {
            seen.Add(probe.Request(1).ExpectNext());
        }

        Assert.Equal(ids.Order(StringComparer.Ordinal), seen.Order(StringComparer.Ordinal));
        probe.Request(1).ExpectNoMsg(TimeSpan.FromMilliseconds(200));
    }

    /// <summary>
    /// Persists <see cref="Before"/> events the probe takes, then <see cref="After"/> more than the query reads ahead,
    /// and compacts the journal, whose feed the query's tail had not read that far; returns the events still to come.
    /// </summary>
    /// <summary>The probe's next events are <paramref name="expected"/>, in order, and then none.</summary>
    private static void ExpectExactly(TestSubscriber.Probe<object> probe, List<string> expected)
    {
        foreach (var e in expected)
        {
            probe.Request(1).ExpectNext(e);
        }

        probe.Request(1).ExpectNoMsg(TimeSpan.FromMilliseconds(200));
    }

    private async Task<List<string>> PersistPastACompactionAsync(string persistenceId, TestSubscriber.Probe<object> probe, string suffix = "")
    {
        var actor = Setup(persistenceId, 0);
        for (var i = 1; i <= Before; i++)
        {
            actor.Tell($"{persistenceId}-{i} {suffix}".TrimEnd());
            ExpectMsg($"{persistenceId}-{i} {suffix}".TrimEnd() + "-done");
        }

        for (var i = 1; i <= Before; i++)
        {
            probe.Request(1).ExpectNext($"{persistenceId}-{i} {suffix}".TrimEnd());
        }

        var expected = new List<string>();
        for (var i = Before + 1; i <= Before + After; i++)
        {
            var e = $"{persistenceId}-{i} {suffix}".TrimEnd();
            actor.Tell(e);
            ExpectMsg(e + "-done");
            expected.Add(e);
        }

        await CompactJournalAsync();
        return expected;
    }

    private async Task CompactJournalAsync()
    {
        var settings = PluginSettings.From(Sys.Settings.Config.GetConfig("akka.persistence.journal.stellar"), "akka.persistence.journal.stellar");
        await using var lease = await SharedStores.AcquireAsync(Sys, settings, "test");
        var log = await (await lease.StoreAsync()).EventsAsync(settings.Collection);
        await log.Events.CompactAsync();
        Assert.True(log.Events.Statistics.Compactions > 0);
    }
}
