using Akka;
using Akka.Actor;
using Akka.Persistence.Query;
using Akka.Streams;
using Akka.Streams.Dsl;
using Stellar.Store.Persistence.Query;
using Stellar.Store.Persistence.Records;
using Stellar.Store.Persistence.Storage;

namespace Stellar.Store.Persistence.Tests.Query;

/// <summary>
/// Live queries whose consumer lags behind the journal while a delete removes events it has not taken yet: the query
/// follows the change feed, which still holds the deleted events' writes, and must not deliver an event the delete
/// hides, as a replay or a query started after the delete would not.
/// </summary>
public sealed class LiveQueryDeleteTests : IAsyncLifetime
{
    private const int Events = 2_000;
    private const int DeletedTo = 1_500;

    /// <summary>Events a query may hold read ahead of its consumer before the delete: its buffer and the stream's.</summary>
    private const int ReadAhead = 64;

    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
    private readonly string _directory = PluginTestConfig.NewDirectory();
    private ActorSystem _system = null!;

    [Fact]
    public async Task EventsByPersistenceId_WhoseConsumerLagsBehindADelete_DeliversNoEventTheDeleteHides() =>
        AssertDeliveredWhole(await DeliveredAcrossADeleteAsync(queries => queries.EventsByPersistenceId("p", 1, long.MaxValue)));

    [Fact]
    public async Task EventsByTag_WhoseConsumerLagsBehindADelete_DeliversNoEventTheDeleteHides() =>
        AssertDeliveredWhole(await DeliveredAcrossADeleteAsync(queries => queries.EventsByTag("gold", Offset.NoOffset())));

    public Task InitializeAsync()
    {
        _system = ActorSystem.Create("live-query-delete-tests", PluginTestConfig.For(_directory, extra: "akka.persistence.query.journal.stellar.max-buffer-size = 4"));
        return Task.CompletedTask;
    }

    public async Task DisposeAsync()
    {
        await _system.Terminate();
        PluginTestConfig.Delete(_directory);
    }

    /// <summary>
    /// Starts <paramref name="query"/> once the first event is stored and takes that one, writes the rest and deletes
    /// up to <see cref="DeletedTo"/>, then takes what the query gives up to the last event: the sequence numbers.
    /// </summary>
    private async Task<List<long>> DeliveredAcrossADeleteAsync(Func<StellarReadJournal, Source<EventEnvelope, NotUsed>> query)
    {
        await using var lease = await SharedStores.AcquireAsync(_system, Settings(), "test");
        var log = await (await lease.StoreAsync()).EventsAsync("akka-journal");
        var queries = PersistenceQuery.Get(_system).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
        using var materializer = _system.Materializer();

        await WriteAsync(log, 1, 1);
        var queue = query(queries).RunWith(Sink.Queue<EventEnvelope>().WithAttributes(Attributes.CreateInputBuffer(1, 1)), materializer);
        var delivered = new List<long> { (await PullAsync(queue)).SequenceNr };

        await WriteAsync(log, 2, Events);
        await log.DeleteToAsync("p", DeletedTo);
        while (delivered[^1] < Events)
        {
            delivered.Add((await PullAsync(queue)).SequenceNr);
        }

        return delivered;
    }

    /// <summary>
    /// What was delivered is the events from the first up to some number the query had read ahead before the delete,
    /// then every event after the delete's end, in order.
    /// </summary>
    private static void AssertDeliveredWhole(List<long> delivered)
    {
        var before = delivered.TakeWhile(n => n <= DeletedTo).ToList();
        Assert.Equal(Enumerable.Range(1, before.Count).Select(n => (long)n), before);
        Assert.InRange(before.Count, 1, ReadAhead);
        Assert.Equal(Enumerable.Range(DeletedTo + 1, Events - DeletedTo).Select(n => (long)n), delivered.Skip(before.Count));
    }

    private static async Task<EventEnvelope> PullAsync(ISinkQueue<EventEnvelope> queue) =>
        (await queue.PullAsync().WaitAsync(Wait)).Value ?? throw new InvalidOperationException("The query ended.");

    private async Task WriteAsync(EventLog log, int from, int to)
    {
        for (var n = from; n <= to; n += 100)
        {
            var drafts = Enumerable.Range(n, Math.Min(100, to - n + 1)).Select(Draft).ToList();
            Assert.All(await log.WriteAsync(drafts), Assert.Null);
        }
    }

    private AtomicDraft Draft(int sequenceNr)
    {
        var (bytes, serializerId, manifest) = AkkaPayloads.Serialize(_system, $"p-{sequenceNr}");
        return new AtomicDraft([new JournalRecord { PersistenceId = "p", SequenceNr = sequenceNr, Payload = bytes, SerializerId = serializerId, SerializerManifest = manifest, Tags = ["gold"] }], null);
    }

    private PluginSettings Settings() => new(_directory, Durability.WriteThrough, Compression.Lz4, null, null, "akka-journal");
}
