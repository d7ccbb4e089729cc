using System.Collections.Concurrent;
using Xunit.Abstractions;

namespace Stellar.Store.Tests.Api;

/// <summary>Many writers and readers at once: atomic batches are never seen half applied, and completed writes are seen everywhere.</summary>
public sealed class ConcurrencyTests : IDisposable
{
    private const int Accounts = 128;
    private const long StartingGold = 1_000;
    private const long TotalGold = Accounts * StartingGold;

    private readonly TempDirectory _dir = new();
    private readonly ITestOutputHelper _output;

    public ConcurrencyTests(ITestOutputHelper output) => _output = output;

    public void Dispose() => _dir.Dispose();

    /// <summary>
    /// 32 writers move gold between random pairs of accounts, each transfer one atomic <c>WriteAsync</c> that
    /// updates both accounts; 32 readers sum every account on a snapshot meanwhile. A reader that saw half a batch,
    /// or a batch applied twice or lost, would see a different total.
    /// </summary>
    /// <remarks>
    /// A transfer reads both balances and then writes, so two transfers that share an account must not interleave,
    /// or one would overwrite the other and the total drift for a reason that is not the store's. Each writer holds
    /// both accounts' locks (taken in id order) from its read to the completion of its write. That makes the drift
    /// test a read-your-writes test too: the next holder's <c>Get</c>, on whatever thread, must see the balance the
    /// previous holder's completed write left.
    /// </remarks>
    [Fact]
    public async Task WriteAsync_TransfersWhileReadersSumSnapshots_EverySnapshotAndTheReopenedStoreKeepTheTotal()
    {
        var duration = Stress.Duration(TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(10));
        var options = new StoreOptions { Compression = Compression.Lz4 };
        long transfers = 0, snapshots = 0;
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            await accounts.WriteAsync(b =>
            {
                for (var i = 0; i < Accounts; i++)
                {
                    b.Insert(new Account(i, StartingGold));
                }
            });

            var locks = Enumerable.Range(0, Accounts).Select(_ => new SemaphoreSlim(1, 1)).ToArray();
            using var stop = new CancellationTokenSource(duration);
            var failures = new ConcurrentQueue<string>();

            async Task WriterAsync(int seed)
            {
                var random = new Random(seed);
                while (!stop.IsCancellationRequested)
                {
                    var from = random.Next(Accounts);
                    var to = (from + 1 + random.Next(Accounts - 1)) % Accounts;
                    var (first, second) = from < to ? (from, to) : (to, from);
                    await locks[first].WaitAsync();
                    await locks[second].WaitAsync();
                    try
                    {
                        var source = accounts.Get(from)!;
                        var target = accounts.Get(to)!;
                        var amount = source.Gold == 0 ? 0 : random.NextInt64(1, source.Gold + 1);
                        await accounts.WriteAsync(b => b
                            .Update(source with { Gold = source.Gold - amount })
                            .Update(target with { Gold = target.Gold + amount }));
                        Interlocked.Increment(ref transfers);
                    }
                    finally
                    {
                        locks[second].Release();
                        locks[first].Release();
                    }
                }
            }

            async Task ReaderAsync()
            {
                while (!stop.IsCancellationRequested)
                {
                    using (var view = accounts.Snapshot())
                    {
                        var sum = view.Query().Sum(a => a.Gold);
                        if (sum != TotalGold || view.Count != Accounts)
                        {
                            failures.Enqueue($"a snapshot holds {view.Count} accounts with {sum} gold");
                        }
                    }

                    // Query() pins its own snapshot: the same must hold there.
                    var querySum = accounts.Query().Sum(a => a.Gold);
                    if (querySum != TotalGold)
                    {
                        failures.Enqueue($"a query sums to {querySum} gold");
                    }

                    Interlocked.Increment(ref snapshots);

                    // Readers give the pool back between sums, so 64 tasks on few cores all make progress.
                    await Task.Yield();
                }
            }

            var tasks = Enumerable.Range(0, 32).Select(i => Task.Run(() => WriterAsync(i)))
                .Concat(Enumerable.Range(0, 32).Select(_ => Task.Run(ReaderAsync)))
                .ToArray();
            await Task.WhenAll(tasks);

            _output.WriteLine($"{transfers} transfers and {snapshots} snapshot sums in {duration.TotalSeconds} s");
            Assert.Empty(failures);
            Assert.True(transfers > 0, "no transfer ran");
            Assert.True(snapshots > 0, "no snapshot was read");
            Assert.Equal(TotalGold, accounts.Query().Sum(a => a.Gold));
            foreach (var gate in locks)
            {
                gate.Dispose();
            }
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            Assert.Equal(Accounts, accounts.Count);
            Assert.Equal(TotalGold, accounts.Query().Sum(a => a.Gold));
            Assert.All(accounts.Query(), a => Assert.InRange(a.Gold, 0, TotalGold));
        }
    }

    /// <summary>
    /// Writers hand every completed write to checker threads of their own (dedicated threads, never the writer's),
    /// which must see it at once: inserts present, updates at least as new as the completed one, deletes gone.
    /// </summary>
    [Theory]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Buffered)]
    public async Task Get_OnAnotherThreadAfterAWriteCompletes_SeesTheWrite(Durability durability)
    {
        const int Writers = 8;
        const int Checkers = 4;
        var iterations = Stress.Enabled ? 20_000 : 1_500;
        await using var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { Durability = durability });
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        using var completed = new BlockingCollection<(int Key, int Level, bool Deleted)>();
        var failures = new ConcurrentQueue<string>();
        long checkedWrites = 0;

        var checkers = Enumerable.Range(0, Checkers).Select(_ => new Thread(() =>
        {
            foreach (var (key, level, deleted) in completed.GetConsumingEnumerable())
            {
                var seen = players.Get(key);

                // Keys are never reused after a delete, and levels only grow, so a later write cannot excuse a miss.
                var ok = deleted ? seen is null : seen is not null && seen.Level >= level;
                if (!ok)
                {
                    failures.Enqueue($"key {key}: expected {(deleted ? "deleted" : $"level >= {level}")}, saw {(seen is null ? "nothing" : $"level {seen.Level}")}");
                }

                Interlocked.Increment(ref checkedWrites);
            }
        }) { IsBackground = true }).ToList();
        checkers.ForEach(t => t.Start());

        async Task WriterAsync(int writer)
        {
            // Writer w owns keys w*1_000_000 + n: a live key it updates, and fresh keys it inserts then deletes.
            var live = writer * 1_000_000;
            await players.InsertAsync(new Player(live, "live", 0, 0));
            completed.Add((live, 0, false));
            for (var i = 1; i <= iterations; i++)
            {
                var fresh = live + i;
                switch (i % 4)
                {
                    case 0:
                        await players.UpsertAsync(new Player(live, "live", i, i));
                        completed.Add((live, i, false));
                        break;
                    case 1:
                        await players.InsertAsync(new Player(fresh, "fresh", i, i));
                        completed.Add((fresh, i, false));
                        break;
                    case 2:
                        await players.WriteAsync(b => b.Update(new Player(live, "live", i, i)).Insert(new Player(fresh, "fresh", i, i)));
                        completed.Add((live, i, false));
                        completed.Add((fresh, i, false));
                        break;
                    default:
                        await players.InsertAsync(new Player(fresh, "doomed", i, i));
                        Assert.True(await players.DeleteAsync(fresh));
                        completed.Add((fresh, i, true));
                        break;
                }
            }
        }

        try
        {
            await Task.WhenAll(Enumerable.Range(0, Writers).Select(w => Task.Run(() => WriterAsync(w))));
        }
        finally
        {
            completed.CompleteAdding();
            checkers.ForEach(t => t.Join());
        }

        Assert.Empty(failures);
        Assert.Equal(Writers * (1 + iterations + (iterations / 4)), checkedWrites);
    }
}
