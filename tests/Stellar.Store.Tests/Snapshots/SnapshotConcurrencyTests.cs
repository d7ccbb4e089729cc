using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Snapshots;

public sealed class SnapshotConcurrencyTests : IDisposable
{
    private const int Writers = 4;
    private const int KeysPerWriter = 50;
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    /// <summary>
    /// Each writer rewrites its own 50 keys in one atomic batch per round, so at every version all of a writer's keys
    /// carry the same round. Readers on other threads check that on snapshots, on queries and on point reads of
    /// the latest version (which may move between reads, but never backwards for one writer's batch).
    /// </summary>
    [Fact]
    public async Task Readers_DuringConcurrentBatches_AlwaysSeeWholeBlocks()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { MaxShardBytes = 64 * 1024 });
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await WriteRoundAsync(players, 0);
        using var stop = new CancellationTokenSource();
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();
        long checks = 0;

        var readers = Enumerable.Range(0, 3).Select(_ => Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                using var view = players.Snapshot();
                for (var w = 0; w < Writers; w++)
                {
                    var rounds = Enumerable.Range(w * KeysPerWriter, KeysPerWriter).Select(k => view.Get(k)!.Level).Distinct().ToArray();
                    if (rounds.Length != 1)
                    {
                        failures.Enqueue($"writer {w}: snapshot saw rounds {string.Join(",", rounds)}");
                    }
                }

                var byWriter = view.Query().GroupBy(p => p.Id / KeysPerWriter).Select(g => g.Select(p => p.Level).Distinct().Count());
                if (byWriter.Any(n => n != 1) || view.Count != Writers * KeysPerWriter)
                {
                    failures.Enqueue("a query saw half a batch");
                }

                // Without a snapshot, rounds read one key after another never go backwards.
                var last = 0;
                for (var k = 0; k < KeysPerWriter; k++)
                {
                    var level = players.Get(k)!.Level;
                    if (level < last)
                    {
                        failures.Enqueue($"key {k} went back from round {last} to {level}");
                    }

                    last = level;
                }

                Interlocked.Increment(ref checks);
            }
        })).ToArray();

        var finalRounds = new int[Writers];
        var writers = Enumerable.Range(0, Writers).Select(w => Task.Run(async () =>
        {
            // At least 150 rounds, and on until the readers have checked enough versions.
            for (var round = 1; round <= 150 || (Interlocked.Read(ref checks) < 30 && round < 100_000); round++)
            {
                finalRounds[w] = round;
                await players.WriteAsync(b =>
                {
                    for (var k = w * KeysPerWriter; k < (w + 1) * KeysPerWriter; k++)
                    {
                        b.Upsert(new Player(k, $"p{k}", round, round));
                    }
                });
            }
        })).ToArray();

        await Task.WhenAll(writers);
        await stop.CancelAsync();
        await Task.WhenAll(readers);
        Assert.Empty(failures);
        Assert.True(Interlocked.Read(ref checks) >= 30);
        Assert.All(players.Query(), p => Assert.Equal(finalRounds[p.Id / KeysPerWriter], p.Level));
    }

    private static Task WriteRoundAsync(Collection<int, Player> players, int round) => players.WriteAsync(b =>
    {
        for (var k = 0; k < Writers * KeysPerWriter; k++)
        {
            b.Upsert(new Player(k, $"p{k}", round, round));
        }
    });
}
