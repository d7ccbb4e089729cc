using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Support;

namespace Stellar.Store.Tests.Feed;

/// <summary>Named cursors: a consumer resumes after what it acknowledged, across crashes of its process.</summary>
public sealed class ChangeFeedCursorTests
{
    private static readonly StoreOptions Options = new() { Durability = Durability.WriteThrough, CompactionThreshold = 0 };

    public static TheoryData<int> Seeds() => new(Stress.Seeds(1, 3, 50));

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task Feed_AConsumerKilledAtRandomPointsAndRestarted_ProcessesEveryChangeOnceInOrder(int seed)
    {
        var random = new Random(seed);
        var memory = new MemoryStorage();
        var written = new List<(int Key, long Gold)>();

        // What the consumer processed, kept together with its acknowledgement: a change processed but not acknowledged
        // when the process dies is lost with it, as a consumer's transaction would be.
        var processed = new List<(int Key, long Gold)>();
        var sessions = Stress.Pick(12, 120);
        for (var session = 0; session < sessions || processed.Count < written.Count; session++)
        {
            var store = await StellarStore.OpenAsync(memory, Options);
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            var cursor = accounts.Feed("analytics");
            if (session < sessions)
            {
                var count = random.Next(1, 40);
                for (var i = 0; i < count; i++)
                {
                    if (random.Next(4) == 0)
                    {
                        var batch = Enumerable.Range(0, random.Next(2, 6)).Select(_ => new Account(written.Count + random.Next(1_000_000), session)).DistinctBy(a => a.Id).ToList();
                        await accounts.WriteAsync(b => batch.ForEach(a => b.Upsert(a)));
                        written.AddRange(batch.Select(a => (a.Id, a.Gold)));
                    }
                    else
                    {
                        var account = new Account(random.Next(1_000_000), session);
                        await accounts.UpsertAsync(account);
                        written.Add((account.Id, account.Gold));
                    }
                }
            }

            // The consumer runs until a random kill point (or to the end, in the last sessions), then the process dies.
            var killAfter = session < sessions ? random.Next(0, 60) : int.MaxValue;
            var pending = new List<(int Key, long Gold)>();
            using var guard = new CancellationTokenSource(TimeSpan.FromMinutes(2));
            var seen = 0;
            if (processed.Count < written.Count)
            {
                await foreach (var change in cursor.Changes(guard.Token))
                {
                    pending.Add((change.Key, change.Value!.Gold));
                    if (++seen > killAfter)
                    {
                        break;
                    }

                    if (change.EndsUnit && random.Next(3) > 0)
                    {
                        await cursor.AcknowledgeAsync(change.Position);
                        processed.AddRange(pending);
                        pending.Clear();
                    }

                    if (processed.Count + pending.Count == written.Count)
                    {
                        await cursor.AcknowledgeAsync(change.Position);
                        processed.AddRange(pending);
                        break;
                    }
                }
            }

            await Crash.AndAbandonAsync(memory, store, losesUnsyncedData: false);
        }

        Assert.Equal(written, processed);
    }

    [Fact]
    public async Task Feed_TwoCursorsOfOneCollection_KeepTheirOwnPositionsAcrossAReopen()
    {
        var memory = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(memory, Options))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            await accounts.UpsertAsync(new Account(1, 1));
            await accounts.UpsertAsync(new Account(2, 2));
            var changes = await FeedReading.ReadToEndAsync(accounts, ChangePosition.Start);
            await accounts.Feed("map").AcknowledgeAsync(changes[0].Position);
            await accounts.Feed("bots").AcknowledgeAsync(changes[1].Position);
            await accounts.Feed("bots").AcknowledgeAsync(changes[0].Position);
        }

        await using var reopened = await StellarStore.OpenAsync(memory, Options);
        var again = reopened.GetCollection<int, Account>("accounts", a => a.Id);
        await again.UpsertAsync(new Account(3, 3));

        using var guard = new CancellationTokenSource(TimeSpan.FromMinutes(2));
        Assert.Equal(new[] { 2, 3 }, await again.Feed("map").Changes(guard.Token).Take(2).Select(c => c.Key).ToArrayAsync(guard.Token));
        Assert.Equal(new[] { 3 }, await again.Feed("bots").Changes(guard.Token).Take(1).Select(c => c.Key).ToArrayAsync(guard.Token));
        Assert.Equal(ChangePosition.Start, again.Feed("new").Position);
    }
}
