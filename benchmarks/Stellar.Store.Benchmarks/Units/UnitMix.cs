using System.Diagnostics;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Units;

/// <summary>
/// The <c>units</c> verb, a measured run rather than a BenchmarkDotNet benchmark (it is about the throughput of many
/// callers over a fixed time): 64 callers, each writing units of 2 to 5 small records as fast as its writes complete,
/// into a fresh store of four collections per row and run. Each caller draws the same sequence of units in both write
/// rows (same seed): the single-collection row writes a unit's records as one atomic <c>collection.WriteAsync</c>
/// batch into one collection, the cross-collection row spreads the same records over 2 to 4 collections (never more
/// than it has records) and writes them with one <c>store.WriteAsync</c>. So both rows write the same records and
/// spread them over the same collections in the long run; only the atomicity across collections differs. Records are
/// upserts over a fixed set of keys per caller and collection, so the stores stay small and the runs equal.
/// Each row runs in WriteThrough and in Fsync mode; only rows of one mode are compared. Runs go in rounds (every row
/// once per round, the two write rows of a mode in alternating order), so a slow minute of the machine falls on all
/// rows alike, and the cross / single ratio is taken per round, from the two rows that ran side by side.
/// After the writes, each round times store snapshot reads: a <c>store.Snapshot()</c> and one read in each of the four
/// collections through it, against a <c>collection.Snapshot()</c> and one read of each collection.
/// </summary>
internal static class UnitMix
{
    /// <summary>Concurrent callers of the write rows.</summary>
    public const int Callers = 64;

    /// <summary>Collections of each store.</summary>
    public const int Collections = 4;

    /// <summary>Keys per caller and collection that the upserts cycle through.</summary>
    public const int KeysPerCaller = 64;

    /// <summary>The baseline write row: a unit's records as one batch of one collection.</summary>
    public const string Single = "SingleCollectionBatch";

    /// <summary>The same records spread over 2 to 4 collections, one unit across them.</summary>
    public const string Cross = "CrossCollectionUnit";

    /// <summary>A store snapshot and one read of each collection through it.</summary>
    public const string StoreSnapshot = "StoreSnapshot";

    /// <summary>A snapshot of each collection and one read of each.</summary>
    public const string CollectionSnapshots = "CollectionSnapshots";

    /// <summary>The <see cref="UnitRow.Mode"/> of the snapshot-read rows (a WriteThrough store that is not written meanwhile).</summary>
    public const string ReadMode = "read";

    /// <summary>The durability modes of the write rows.</summary>
    public static readonly Durability[] Modes = [Durability.WriteThrough, Durability.Fsync];

    /// <summary>Runs of every row in a default <c>units</c> or <c>all</c> run: six, the fewest whose min–max covers the median at 95%.</summary>
    public static int DefaultRuns => Scale.Dry ? 2 : 6;

    /// <summary>Snapshot cuts per read row and run.</summary>
    private static int Cuts => Scale.Dry ? 200 : 200_000;

    /// <summary>Records in each collection of the snapshot-read store.</summary>
    private static int ReadKeys => Scale.Dry ? 100 : 10_000;

    /// <summary>
    /// Runs every row <paramref name="runs"/> times, in rounds, each write row for <paramref name="duration"/> after an
    /// untimed warm-up; writes every run to <c>units.csv</c> and the medians with their intervals to <c>units.md</c>.
    /// </summary>
    public static List<UnitRow> Run(string resultsFolder, TimeSpan duration, int runs)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(runs, 1);
        var rows = new List<UnitRow>();
        for (var run = 1; run <= runs; run++)
        {
            foreach (var mode in Modes)
            {
                foreach (var kind in run % 2 == 1 ? new[] { Single, Cross } : [Cross, Single])
                {
                    rows.Add(MeasureWrites(run, mode, kind, duration));
                    Console.WriteLine($"// units, run {run} of {runs}: {rows[^1]}");
                }
            }

            rows.AddRange(MeasureSnapshots(run));
            Console.WriteLine($"// units, run {run} of {runs}: {rows[^2]}, {rows[^1]}");
        }

        Directory.CreateDirectory(resultsFolder);
        File.WriteAllText(Path.Combine(resultsFolder, "units.csv"), UnitRow.ToCsv(rows));
        File.WriteAllText(Path.Combine(resultsFolder, "units.md"), UnitSummary.ToMarkdown(rows, duration));
        return rows;
    }

    /// <summary>The untimed warm-up before each write row: 1 s, or the run's length when that is shorter.</summary>
    private static TimeSpan WarmUp(TimeSpan duration) => duration < TimeSpan.FromSeconds(1) ? duration : TimeSpan.FromSeconds(1);

    private static UnitRow MeasureWrites(int run, Durability mode, string kind, TimeSpan duration)
    {
        var directory = Paths.FreshDirectory(Paths.StoresRoot, $"units-{Guid.NewGuid():n}");
        try
        {
            var (store, collections) = Open(directory, mode);
            try
            {
                // Untimed, the same load first: the process's first row would otherwise pay the JIT and the thread
                // pool's growth, and the store its first shard of each collection (and the unit log's).
                Write(store, collections, kind == Cross, WarmUp(duration), seed: -run);
                var roundsBefore = VisibleRound(store);
                var (seconds, units, records) = Write(store, collections, kind == Cross, duration, seed: run);
                return new UnitRow(run, mode.ToString(), kind, Callers, seconds, units, records, VisibleRound(store) - roundsBefore);
            }
            finally
            {
                store.DisposeAsync().AsTask().GetAwaiter().GetResult();
            }
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>64 callers writing units until <paramref name="duration"/> has passed; the time is until the last unit completed.</summary>
    private static (double Seconds, long Units, long Records) Write(StellarStore store, Collection<int, SmallRecord>[] collections, bool cross, TimeSpan duration, int seed)
    {
        var clock = new Stopwatch();
        var units = new long[Callers];
        var records = new long[Callers];
        var callers = Infrastructure.Callers.Tasks(Callers, async caller =>
        {
            var random = new Random(HashCode.Combine(seed, caller));
            var cursors = new int[Collections];
            while (clock.Elapsed < duration)
            {
                // The unit's shape: 2..5 records over 2..min(4, records) collections from a random first one; the
                // single-collection row writes the same records, drawn the same way, into that first collection.
                var size = random.Next(2, 6);
                var spread = random.Next(2, Math.Min(Collections, size) + 1);
                var first = random.Next(Collections);
                var score = random.Next(0, 1_000_000);
                SmallRecord Next(int c) => new()
                {
                    Id = (caller * KeysPerCaller) + (cursors[c]++ % KeysPerCaller),
                    Name = "player",
                    Score = score,
                    LastSeen = DateTime.UnixEpoch,
                };

                if (cross)
                {
                    await store.WriteAsync(tx =>
                    {
                        for (var i = 0; i < size; i++)
                        {
                            var c = (first + (i % spread)) % Collections;
                            tx.In(collections[c]).Upsert(Next(c));
                        }
                    }).ConfigureAwait(false);
                }
                else
                {
                    await collections[first].WriteAsync(batch =>
                    {
                        for (var i = 0; i < size; i++)
                        {
                            batch.Upsert(Next(first));
                        }
                    }).ConfigureAwait(false);
                }

                units[caller]++;
                records[caller] += size;
            }
        });
        clock.Start();
        callers.Run();
        return (clock.Elapsed.TotalSeconds, units.Sum(), records.Sum());
    }

    private static List<UnitRow> MeasureSnapshots(int run)
    {
        var directory = Paths.FreshDirectory(Paths.StoresRoot, $"units-read-{Guid.NewGuid():n}");
        try
        {
            var (store, collections) = Open(directory, Durability.WriteThrough);
            try
            {
                foreach (var collection in collections)
                {
                    collection.BulkImportAsync(Data.SmallRange(ReadKeys)).GetAwaiter().GetResult();
                }

                var rows = new List<UnitRow>();
                foreach (var kind in run % 2 == 1 ? new[] { StoreSnapshot, CollectionSnapshots } : [CollectionSnapshots, StoreSnapshot])
                {
                    Read(store, collections, kind, Cuts / 10);
                    var seconds = Read(store, collections, kind, Cuts);
                    rows.Add(new UnitRow(run, ReadMode, kind, 1, seconds, Cuts, (long)Cuts * Collections, 0));
                }

                return rows;
            }
            finally
            {
                store.DisposeAsync().AsTask().GetAwaiter().GetResult();
            }
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>On one thread, <paramref name="cuts"/> times: take the snapshot(s) of <paramref name="kind"/>, read one key of every collection, dispose.</summary>
    private static double Read(StellarStore store, Collection<int, SmallRecord>[] collections, string kind, int cuts)
    {
        var clock = Stopwatch.StartNew();
        for (var n = 0; n < cuts; n++)
        {
            var key = 1 + (n % ReadKeys);
            if (kind == StoreSnapshot)
            {
                using var snapshot = store.Snapshot();
                foreach (var collection in collections)
                {
                    Found(snapshot.Of(collection).Get(key));
                }
            }
            else
            {
                foreach (var collection in collections)
                {
                    using var snapshot = collection.Snapshot();
                    Found(snapshot.Get(key));
                }
            }
        }

        return clock.Elapsed.TotalSeconds;

        static void Found(SmallRecord? record)
        {
            if (record is null)
            {
                throw new InvalidOperationException("A snapshot read missed a key the store holds.");
            }
        }
    }

    private static (StellarStore Store, Collection<int, SmallRecord>[] Collections) Open(string directory, Durability mode)
    {
        var store = StellarStore.OpenAsync(directory, Peers.Stellar.Options(mode)).GetAwaiter().GetResult();
        return (store, Enumerable.Range(0, Collections).Select(i => store.GetCollection<int, SmallRecord>($"part-{i}", r => r.Id)).ToArray());
    }

    /// <summary>The rounds the store's coordinator has made visible since open.</summary>
    private static long VisibleRound(StellarStore store) => store.UnitRounds;
}
