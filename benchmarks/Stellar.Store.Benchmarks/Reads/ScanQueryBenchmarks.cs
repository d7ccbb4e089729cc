using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using ZoneTree;

namespace Stellar.Store.Benchmarks.Reads;

/// <summary>
/// Workload 5: a query with a predicate on two fields (score and last-seen date; about a quarter of the records
/// match), materialized as a list, on 100,000 small records. No secondary indexes anywhere: every peer scans (SQLite
/// with its page cache and memory map large enough to hold the database). The dry-run test checks that every peer
/// returns the same number of records as a plain LINQ filter over the same data.
/// </summary>
[MemoryDiagnoser]
[ReadJob]
[BenchmarkCategory("ScanQuery", Pairing.Read)]
public class ScanQueryBenchmarks : StoreBenchmark
{
    /// <summary>The query's lower bound on the score.</summary>
    internal const int MinScore = 500_000;

    /// <summary>The query's lower bound on the last-seen date.</summary>
    internal static readonly DateTime Since = Data.Epoch.AddDays(182);

    private Collection<int, SmallRecord> _stellar = null!;
    private ILiteCollection<SmallRecord> _lite = null!;
    private Sqlite _sqlite = null!;
    private IZoneTree<int, SmallRecord> _zone = null!;
    private ConcurrentDictionary<int, SmallRecord> _dictionary = null!;

    private static SmallRecord[] Records => Data.SmallRange(PointReadBenchmarks.StoreRecords).ToArray();

    [GlobalSetup(Target = nameof(LiteDb_Find))]
    public void SetupLite()
    {
        _lite = Lite.Small(OpenLite(nameof(LiteDb_Find)));
        _lite.InsertBulk(Records);
    }

    [GlobalSetup(Target = nameof(Sqlite_Where))]
    public void SetupSqlite()
    {
        _sqlite = OpenSqlite(nameof(Sqlite_Where), SqliteSync.Normal);
        _sqlite.BulkInsert(Records);
    }

    [GlobalSetup(Target = nameof(ZoneTree_Iterate))]
    public void SetupZone()
    {
        _zone = OpenZone(nameof(ZoneTree_Iterate));
        foreach (var record in Records)
        {
            _zone.Upsert(record.Id, record);
        }
    }

    [GlobalSetup(Target = nameof(Stellar_Query))]
    public void SetupStellar()
    {
        _stellar = OpenStellar(nameof(Stellar_Query), Peers.Stellar.Options(Durability.WriteThrough));
        _stellar.BulkImportAsync(Records).GetAwaiter().GetResult();
    }

    [GlobalSetup(Target = nameof(ConcurrentDictionary_Values))]
    public void SetupDictionary()
    {
        _dictionary = new ConcurrentDictionary<int, SmallRecord>(Records.Select(r => KeyValuePair.Create(r.Id, r)));
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        CloseMeasureAndDelete();
        DeleteRoot();
    }

    [Benchmark(Baseline = true)]
    public int LiteDb_Find() => _lite.Find(r => r.Score >= MinScore && r.LastSeen >= Since).ToList().Count;

    [Benchmark]
    public int Sqlite_Where() => _sqlite.Scan(MinScore, Since).Count;

    [Benchmark]
    public int ZoneTree_Iterate()
    {
        var list = new List<SmallRecord>();
        using var iterator = _zone.CreateIterator(IteratorType.NoRefresh, false, false);
        while (iterator.Next())
        {
            var record = iterator.CurrentValue;
            if (record.Score >= MinScore && record.LastSeen >= Since)
            {
                list.Add(record);
            }
        }

        return list.Count;
    }

    [Benchmark]
    public int Stellar_Query() => _stellar.Query(r => r.Score >= MinScore && r.LastSeen >= Since).ToList().Count;

    /// <summary>The in-memory floor: the same predicate over the values of a <see cref="ConcurrentDictionary{TKey,TValue}"/>.</summary>
    [Benchmark]
    public int ConcurrentDictionary_Values() => _dictionary.Values.Where(r => r.Score >= MinScore && r.LastSeen >= Since).ToList().Count;
}
