using System.Collections.Immutable;
using Akka.Actor;
using Akka.Persistence.Query;
using Akka.Streams;
using Akka.Streams.Dsl;
using Stellar.Store.Persistence.Query;
using Stellar.Store.Persistence.Records;
using Stellar.Store.Persistence.Storage;

namespace Stellar.Store.Persistence.Tests.Query;

/// <summary>
/// Live queries started while events are written: each must deliver every event (or id) the test wrote, once, in
/// order, whenever it started. The oracle is what the test itself wrote; the last write is a sentinel, after which
/// everything written before it must have been delivered.
/// </summary>
public sealed class LiveQueryRaceTests : IAsyncLifetime
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(60);
    private readonly string _directory = PluginTestConfig.NewDirectory();
    private ActorSystem _system = null!;

    [Fact]
    public async Task EventsByPersistenceId_StartedWhileAnIdWritesPastRejectedNumbers_DeliversEveryEventOnce()
    {
        await using var lease = await SharedStores.AcquireAsync(_system, Settings(), "test");
        var log = await (await lease.StoreAsync()).EventsAsync("akka-journal");
        var queries = PersistenceQuery.Get(_system).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
        using var materializer = _system.Materializer();

        // One actor's calls, as the journal gets them from PersistAsync: up to four under way at once, eight atomic
        // writes a call, the first of each rejected before it reaches the store (an event Akka could not serialize),
        // which leaves its number a gap.
        const int Calls = 400;
        const int PerCall = 8;
        const int InFlight = 4;
        var stored = Enumerable.Range(1, Calls * PerCall).Where(n => n % PerCall != 1).Select(n => (long)n).ToList();
        var last = stored[^1];
        var started = new List<(long From, Task<IImmutableList<EventEnvelope>> Delivered)>();
        var writing = new Queue<(List<AtomicDraft> Drafts, Task<Exception?[]> Outcomes)>();
        for (var call = 0; call < Calls; call++)
        {
            var drafts = Enumerable.Range((call * PerCall) + 1, PerCall)
                .Select(n => n % PerCall == 1 ? new AtomicDraft(null, new ArgumentException("not serializable")) : Draft("p", n))
                .ToList();
            writing.Enqueue((drafts, log.WriteAsync(drafts)));
            if (call % 2 == 0)
            {
                // From the call just submitted: the read of the stored events is short, and the query's start falls
                // among that call's commit and its completion.
                var from = (long)(call * PerCall) + 1;
                started.Add((from, queries.EventsByPersistenceId("p", from, long.MaxValue)
                    .TakeWhile(e => e.SequenceNr < last, inclusive: true)
                    .RunWith(Sink.Seq<EventEnvelope>(), materializer)));
            }

            while (writing.Count >= InFlight || (call == Calls - 1 && writing.Count > 0))
            {
                var (written, outcomes) = writing.Dequeue();
                Assert.Equal(written.Select(d => d.Rejection), await outcomes);
            }
        }

        foreach (var (from, delivered) in started)
        {
            Assert.Equal(stored.Where(n => n >= from), (await delivered.WaitAsync(Wait)).Select(e => e.SequenceNr));
        }
    }

    [Fact]
    public async Task PersistenceIds_StartedWhileNewIdsWrite_DeliversEveryIdOnce()
    {
        await using var lease = await SharedStores.AcquireAsync(_system, Settings(), "test");
        var log = await (await lease.StoreAsync()).EventsAsync("akka-journal");
        var queries = PersistenceQuery.Get(_system).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
        using var materializer = _system.Materializer();

        // New ids, each writing one event, from several writers at once; queries start among them.
        const int Writers = 4;
        const int IdsPerWriter = 300;
        var ids = new List<string>();
        var started = new List<Task<IImmutableList<string>>>();
        for (var round = 0; round < IdsPerWriter; round++)
        {
            var batch = Enumerable.Range(0, Writers).Select(w => $"id-{round:D4}-{w}").ToList();
            ids.AddRange(batch);
            var writing = batch.Select(id => log.WriteAsync([Draft(id, 1)])).ToList();
            if (round % 5 == 0)
            {
                started.Add(queries.PersistenceIds()
                    .TakeWhile(id => id != "sentinel", inclusive: true)
                    .RunWith(Sink.Seq<string>(), materializer));
            }

            foreach (var outcome in await Task.WhenAll(writing))
            {
                Assert.Null(outcome[0]);
            }
        }

        Assert.Null((await log.WriteAsync([Draft("sentinel", 1)]))[0]);
        ids.Add("sentinel");
        foreach (var query in started)
        {
            var delivered = await query.WaitAsync(Wait);
            Assert.Equal(ids.Order(StringComparer.Ordinal), delivered.Order(StringComparer.Ordinal));
        }
    }

    public Task InitializeAsync()
    {
        // fsync: a group is published to readers before its fsync, and its writes complete after it, so the time between
        // an event's commit and the completion of its write (when the journal counts it) is long enough to meet.
        _system = ActorSystem.Create("live-query-race-tests", PluginTestConfig.For(_directory, "fsync"));
        return Task.CompletedTask;
    }

    public async Task DisposeAsync()
    {
        await _system.Terminate();
        PluginTestConfig.Delete(_directory);
    }

    private AtomicDraft Draft(string persistenceId, long sequenceNr)
    {
        var (bytes, serializerId, manifest) = AkkaPayloads.Serialize(_system, $"{persistenceId}-{sequenceNr}");
        return new AtomicDraft([new JournalRecord { PersistenceId = persistenceId, SequenceNr = sequenceNr, Payload = bytes, SerializerId = serializerId, SerializerManifest = manifest }], null);
    }

    private PluginSettings Settings() => new(_directory, Durability.Fsync, Compression.Lz4, null, null, "akka-journal");
}
