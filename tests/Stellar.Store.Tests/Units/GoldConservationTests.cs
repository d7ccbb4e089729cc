using System.Collections.Concurrent;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Units;

/// <summary>
/// Gold moves between accounts kept in three collections, each move one unit across two of them, while readers take
/// store snapshots: every snapshot sums to the total that was put in, and holds every move whose task completed before
/// it was taken.
/// </summary>
public sealed class GoldConservationTests : IDisposable
{
    private const int AccountsPerCollection = 8;
    private const long StartingGold = 1_000;
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    /// <param name="compactWhileMoving">Whether compactions move the vaults' blocks while the gold moves.</param>
    /// <param name="dedicatedThreads">Whether the writers run on threads of their own (<see cref="StoreOptions.DedicatedThreads"/>).</param>
    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public async Task Snapshot_WhileUnitsMoveGoldAcrossCollections_AlwaysSumsToTheTotalAndHoldsEveryCompletedMove(bool compactWhileMoving, bool dedicatedThreads)
    {
        var options = new StoreOptions { Durability = Durability.WriteThrough, MaxShardBytes = 64 * 1024, CompactionThreshold = 0, DedicatedThreads = dedicatedThreads };
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var vaults = new[] { "vault-a", "vault-b", "vault-c" }.Select(n => store.GetCollection<int, Account>(n, a => a.Id)).ToArray();
        foreach (var vault in vaults)
        {
            await vault.WriteAsync(b =>
            {
                for (var i = 0; i < AccountsPerCollection; i++)
                {
                    b.Insert(new Account(i, StartingGold));
                }
            });
        }

        var total = vaults.Length * AccountsPerCollection * StartingGold;
        var movesPerMover = Stress.Pick(150, 2_000);
        var completed = new ConcurrentDictionary<long, bool>();
        var movers = Enumerable.Range(0, 4).Select(m => Task.Run(async () =>
        {
            // Each mover owns one account per collection (its own index), so it knows the balances exactly and each
            // move carries a serial number in the gold it leaves: the readers check completed moves by it.
            var random = new Random(m);
            for (var n = 1; n <= movesPerMover; n++)
            {
                var from = random.Next(vaults.Length);
                var to = (from + 1 + random.Next(vaults.Length - 1)) % vaults.Length;
                var id = m;
                var serial = (m * 1_000_000L) + n;
                await store.WriteAsync(tx =>
                {
                    var source = vaults[from].Get(id)!;
                    var target = vaults[to].Get(id)!;
                    tx.In(vaults[from]).Update(source with { Gold = source.Gold - 1 });
                    tx.In(vaults[to]).Update(target with { Gold = target.Gold + 1 });

                    // A third collection's tally of this mover's moves, updated in the same unit.
                    var tally = vaults[3 - from - to];
                    tx.In(tally).Upsert(new Account(100 + id, serial));
                });
                completed[serial] = true;
            }
        })).ToArray();

        var compaction = Task.Run(async () =>
        {
            while (compactWhileMoving && !movers.All(t => t.IsCompleted))
            {
                foreach (var vault in vaults)
                {
                    await vault.CompactAsync();
                }
            }
        });

        var snapshots = 0;
        var checkedMoves = 0L;
        while (!movers.All(t => t.IsCompleted))
        {
            // The moves completed before the snapshot is taken must all be in it.
            var before = completed.Keys.ToArray();
            using var snapshot = store.Snapshot();
            var views = vaults.Select(v => snapshot.Of(v)).ToArray();
            var sum = views.Sum(v => v.Query(a => a.Id < 100).Sum(a => a.Gold));
            Assert.Equal(total, sum);
            Assert.Equal(vaults.Length * AccountsPerCollection, views.Sum(v => v.Query(a => a.Id < 100).Count()));

            // Per mover, the newest tally in the snapshot is at least its newest completed move.
            var tallies = views.SelectMany(v => v.Query(a => a.Id >= 100)).GroupBy(a => a.Id - 100).ToDictionary(g => g.Key, g => g.Max(a => a.Gold));
            foreach (var serial in before)
            {
                var mover = (int)(serial / 1_000_000);
                Assert.True(tallies.TryGetValue(mover, out var seen) && seen >= serial, $"move {serial} completed before the snapshot, which holds the mover's tally {seen}");
                checkedMoves++;
            }

            snapshots++;
        }

        await Task.WhenAll(movers);
        await compaction;
        Assert.True(snapshots > 0, "no snapshot was taken while units ran");
        Assert.Equal(total, vaults.Sum(v => v.Query(a => a.Id < 100).Sum(a => a.Gold)));
        Assert.True(checkedMoves > 0, "no completed move was checked against a snapshot");
    }
}
