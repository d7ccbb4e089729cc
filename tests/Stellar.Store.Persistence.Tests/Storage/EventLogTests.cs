using System.Security.Cryptography;
using Akka.Actor;
using Stellar.Store.Persistence.Records;
using Stellar.Store.Persistence.Storage;

namespace Stellar.Store.Persistence.Tests.Storage;

/// <summary>
/// The journal's log below the actor: the delete marker that makes a delete atomic although its deletes go in
/// batches, the ordering numbers, checked against the change feed's commit order, and a load retried after it failed.
/// </summary>
public sealed class EventLogTests : IAsyncLifetime
{
    private readonly string _directory = PluginTestConfig.NewDirectory();
    private readonly ActorSystem _system = ActorSystem.Create("event-log-tests");

    [Fact]
    public async Task Read_WhenADeleteStoppedAfterItsMarker_HidesEveryEventUpToTheMarker()
    {
        await using (var lease = await AcquireAsync())
        {
            var log = await (await lease.StoreAsync()).EventsAsync("akka-journal");
            await WriteEventsAsync(log, "p", 10);

            // What a crash leaves when a delete's first batch (the marker) is on disk and its later batches are not.
            await log.Events.UpsertAsync(new JournalRecord { PersistenceId = "p", SequenceNr = 0, DeletedTo = 6 });

            Assert.Equal([7L, 8L, 9L, 10L], log.Read("p", 1, 10).Select(r => r.SequenceNr));
        }

        await using (var lease = await AcquireAsync())
        {
            var log = await (await lease.StoreAsync()).EventsAsync("akka-journal");
            Assert.Equal([7L, 8L, 9L, 10L], log.Read("p", 0, long.MaxValue).Select(r => r.SequenceNr));
            Assert.Equal(10, log.HighestSequenceNr("p"));

            // The next delete removes what the interrupted one left behind, and keeps the highest number.
            await log.DeleteToAsync("p", 8);
            Assert.Equal([9L, 10L], log.Read("p", 0, long.MaxValue).Select(r => r.SequenceNr));
            Assert.Equal(3, log.Events.Count); // the marker and events 9 and 10
            Assert.Equal(10, log.HighestSequenceNr("p"));
        }
    }

    [Fact]
    public async Task Read_WhileEventsAreWritten_NeverStepsOverAnEventThatIsThere()
    {
        await using var lease = await AcquireAsync();
        var log = await (await lease.StoreAsync()).EventsAsync("akka-journal");

        // One persistent actor's writes, as the journal gets them: several atomic writes a call, each call awaited.
        const int Calls = 1_000;
        const int PerCall = 8;
        using var stop = new CancellationTokenSource();
        var writer = Task.Run(async () =>
        {
            try
            {
                for (var call = 0; call < Calls; call++)
                {
                    var drafts = Enumerable.Range((call * PerCall) + 1, PerCall)
                        .Select(n => new AtomicDraft([new JournalRecord { PersistenceId = "p", SequenceNr = n, Payload = [1, 2, 3] }], null))
                        .ToList();
                    Assert.All(await log.WriteAsync(drafts), Assert.Null);
                }
            }
            finally
            {
                await stop.CancelAsync();
            }
        });

        // Readers that follow the writer as a live query does, each read from the next number it lacks: nothing was
        // rejected or deleted, so every read must give consecutive numbers from where it started (a read that meets an
        // event not yet committed stops there; it may not go on past it).
        var readers = Enumerable.Range(0, 3).Select(_ => Task.Run(() =>
        {
            var next = 1L;
            var reads = 0;
            while (!stop.IsCancellationRequested || next <= Calls * PerCall)
            {
                var expected = next;
                foreach (var record in log.Read("p", next, long.MaxValue))
                {
                    Assert.Equal(expected, record.SequenceNr);
                    expected++;
                }

                next = expected;
                reads++;
            }

            return reads;
        })).ToList();

        await writer;
        Assert.All(await Task.WhenAll(readers), reads => Assert.True(reads > 0));
    }

    [Fact]
    public async Task Read_WhileADeleteGoesInBatches_NeverGivesAnEventTheDeleteHides()
    {
        await using var lease = await AcquireAsync();
        var log = await (await lease.StoreAsync()).EventsAsync("akka-journal");

        // More events than one delete batch, so that the delete's first batch (its marker and the first deletes) and
        // the next are committed apart; readers that go through them meanwhile must see the delete whole: what they
        // give is the events from where they started up to some number, then nothing up to the delete's end.
        const int Events = 12_000;
        const int DeletedTo = 10_000;
        for (var round = 0; round < 5; round++)
        {
            var persistenceId = $"p{round}";
            for (var from = 1; from <= Events; from += 500)
            {
                var drafts = Enumerable.Range(from, 500)
                    .Select(n => new AtomicDraft([new JournalRecord { PersistenceId = persistenceId, SequenceNr = n, Payload = [1, 2, 3] }], null))
                    .ToList();
                Assert.All(await log.WriteAsync(drafts), Assert.Null);
            }

            using var stop = new CancellationTokenSource();
            var readers = Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
            {
                while (!stop.IsCancellationRequested)
                {
                    var previous = 0L;
                    foreach (var record in log.Read(persistenceId, 1, long.MaxValue))
                    {
                        Assert.True(record.SequenceNr == previous + 1 || record.SequenceNr > DeletedTo, $"{record.SequenceNr} after {previous}");
                        previous = record.SequenceNr;
                    }
                }
            })).ToList();

            await log.DeleteToAsync(persistenceId, DeletedTo);
            await stop.CancelAsync();
            await Task.WhenAll(readers);
            Assert.Equal(Enumerable.Range(DeletedTo + 1, Events - DeletedTo).Select(n => (long)n), log.Read(persistenceId, 1, long.MaxValue).Select(r => r.SequenceNr));
        }
    }

    [Fact]
    public async Task WriteAsync_FromManyWritersAtOnce_GivesOrderingsThatRiseInCommitOrder()
    {
        await using var lease = await AcquireAsync();
        var log = await (await lease.StoreAsync()).EventsAsync("akka-journal");
        await Task.WhenAll(Enumerable.Range(0, 16).Select(w => Task.Run(() => WriteEventsAsync(log, $"w{w}", 50))));

        // The change feed delivers in commit order: the orderings it shows must rise strictly, and be all distinct.
        using var cancel = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var orderings = new List<long>();
        await foreach (var change in log.Events.Changes(ChangePosition.Start, cancel.Token))
        {
            orderings.Add(change.Value!.Ordering);
            if (orderings.Count == 16 * 50)
            {
                break;
            }
        }

        Assert.Equal(orderings.Order(), orderings);
        Assert.Equal(orderings.Count, orderings.Distinct().Count());
        Assert.Equal(orderings.Max(), log.LastOrdering);
    }

    [Fact]
    public async Task EventsAsync_AfterALoadWhoseTagIndexFailedToBuild_LoadsAgainDeclaringTheIndexOnce()
    {
        await using var lease = await AcquireAsync();
        var shared = await lease.StoreAsync();

        // An event larger than the store keeps in memory, so that the tag index's build reads it from its shard file.
        var events = await shared.Store.GetCollectionAsync<(string, long), JournalRecord>("akka-journal", r => (r.PersistenceId, r.SequenceNr));
        await events.InsertAsync(new JournalRecord { PersistenceId = "p", SequenceNr = 1, Ordering = 1, Payload = RandomNumberGenerator.GetBytes(64 * 1024), Tags = ["gold"] });

        // A read of the shard that fails once (a damaged byte, put back), as a flaky disk's does.
        var shard = Directory.GetFiles(_directory, "*.shard").MaxBy(f => new FileInfo(f).Length)!;
        FileDamage.FlipBit(shard, fromEnd: 100);
        await Assert.ThrowsAsync<CorruptBlockException>(() => shared.EventsAsync("akka-journal"));
        FileDamage.FlipBit(shard, fromEnd: 100);

        var log = await shared.EventsAsync("akka-journal");
        Assert.Equal([("p", 1L)], log.ReadTagged("gold", 0, log.LastOrdering, 10).Events.Select(r => (r.PersistenceId, r.SequenceNr)));
        Assert.Equal(1, log.HighestSequenceNr("p"));
        Assert.Equal(["p"], log.PersistenceIds);
        Assert.Equal(1, log.LastOrdering);
    }

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync()
    {
        await _system.Terminate();
        PluginTestConfig.Delete(_directory);
    }

    private static async Task WriteEventsAsync(EventLog log, string persistenceId, int count)
    {
        for (var i = 1; i <= count; i++)
        {
            var outcome = await log.WriteAsync([new AtomicDraft([new JournalRecord { PersistenceId = persistenceId, SequenceNr = i, Payload = [1, 2, 3] }], null)]);
            Assert.Null(outcome[0]);
        }
    }

    private Task<StoreLease> AcquireAsync() =>
        SharedStores.AcquireAsync(_system, new PluginSettings(_directory, Durability.WriteThrough, Compression.Lz4, null, null, "akka-journal"), "test");
}
