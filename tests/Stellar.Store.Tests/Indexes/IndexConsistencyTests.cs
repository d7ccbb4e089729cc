using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// Gold moves between accounts in two collections, each indexed by gold, while readers read the indexes through
/// store snapshots: every answer agrees with the records of the same snapshot, and the gold the indexes hold always
/// sums to the total.
/// </summary>
public sealed class IndexConsistencyTests : IDisposable
{
    private const int Accounts = 16;
    private const long StartingGold = 100;
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task IndexAnswers_WhileUnitsMoveGoldBetweenCollections_AgreeWithTheSnapshotsRecordsAndSumToTheTotal()
    {
        var options = new StoreOptions { MaxShardBytes = 64 * 1024, CompactionThreshold = 0.3 };
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var vaults = new[] { "vault-a", "vault-b" }.Select(n => store.GetCollection<int, Account>(n, a => a.Id)).ToArray();
        foreach (var vault in vaults)
        {
            await vault.WriteAsync(b =>
            {
                for (var i = 0; i < Accounts; i++)
                {
                    b.Insert(new Account(i, StartingGold));
                }
            });
        }

        var indexes = vaults.Select(v => v.Index("by-gold", a => a.Gold)).ToArray();
        await Task.WhenAll(indexes.Select(i => i.Ready));
        var total = vaults.Length * Accounts * StartingGold;
        var movesPerMover = Stress.Pick(300, 3_000);

        // Each mover owns one account id in both collections, so it knows its balances; moves within a collection are
        // atomic batches, moves across are cross-collection writes.
        var movers = Enumerable.Range(0, 4).Select(m => Task.Run(async () =>
        {
            var random = new Random(m);
            for (var n = 0; n < movesPerMover; n++)
            {
                var amount = random.Next(1, 20);
                if (random.Next(2) == 0)
                {
                    var vault = vaults[random.Next(2)];
                    var (from, to) = (m, m + 4);
                    await vault.WriteAsync(b =>
                    {
                        var source = vault.Get(from)!;
                        var target = vault.Get(to)!;
                        var moved = Math.Min(amount, source.Gold);
                        b.Update(source with { Gold = source.Gold - moved });
                        b.Update(target with { Gold = target.Gold + moved });
                    });
                }
                else
                {
                    var (from, to) = random.Next(2) == 0 ? (vaults[0], vaults[1]) : (vaults[1], vaults[0]);
                    await store.WriteAsync(tx =>
                    {
                        var source = from.Get(m)!;
                        var target = to.Get(m)!;
                        var moved = Math.Min(amount, source.Gold);
                        tx.In(from).Update(source with { Gold = source.Gold - moved });
                        tx.In(to).Update(target with { Gold = target.Gold + moved });
                    });
                }
            }
        })).ToArray();

        var reads = 0;
        var readers = Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
        {
            while (!movers.All(t => t.IsCompleted))
            {
                using var snapshot = store.Snapshot();
                long sum = 0;
                for (var i = 0; i < vaults.Length; i++)
                {
                    var records = snapshot.Of(vaults[i]);
                    var view = records.Index(indexes[i]);
                    var all = view.All().ToList();
                    Assert.Equal(records.Query().OrderBy(a => a.Gold).ThenBy(a => a.Id), all);
                    Assert.Equal(all.Count == 0 ? null : all[^1], view.Top(1).SingleOrDefault());
                    var middle = view.Range(50, 150).ToList();
                    Assert.Equal(all.Where(a => a.Gold is >= 50 and <= 150), middle);
                    sum += all.Sum(a => a.Gold);
                }

                Assert.Equal(total, sum);
                Interlocked.Increment(ref reads);
            }
        })).ToArray();

        await Task.WhenAll(movers.Concat(readers)).WaitAsync(TimeSpan.FromMinutes(5));
        Assert.True(reads > 0, "no snapshot was read while gold moved");
        Assert.Equal(total, indexes.Sum(i => i.All().Sum(a => a.Gold)));
    }
}
