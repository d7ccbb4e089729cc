using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using ZoneTree;

namespace Stellar.Store.Benchmarks.Reads;

/// <summary>
/// Workload 4: point reads by key, in random order, on a store of 100,000 small records built once per benchmark.
/// The time is per read. The peers build a fresh object per read (they deserialize); <c>Stellar_Get</c> hands out
/// the object it holds, <c>Stellar_Get_CopyOnRead</c> a fresh copy (<see cref="StoreOptions.CopyOnRead"/>), the
/// like-for-like row. The <c>ConcurrentDictionary</c> row is the in-memory ceiling.
/// </summary>
[MemoryDiagnoser]
[ReadJob]
[BenchmarkCategory("PointRead", Pairing.Read)]
public class PointReadBenchmarks : StoreBenchmark
{
    private const int Reads = 1000;

    private int[] _keys = [];
    private Collection<int, SmallRecord> _stellar = null!;
    private Collection<int, SmallRecord> _stellarCopy = null!;
    private ILiteCollection<SmallRecord> _lite = null!;
    private Sqlite _sqlite = null!;
    private IZoneTree<int, SmallRecord> _zone = null!;
    private ConcurrentDictionary<int, SmallRecord> _dictionary = null!;

    /// <summary>Records in the store.</summary>
    public static int StoreRecords => Scale.Records(100_000);

    private static SmallRecord[] Records => Data.SmallRange(StoreRecords).ToArray();

    [GlobalSetup(Target = nameof(LiteDb_FindById))]
    public void SetupLite()
    {
        SetupKeys();
        _lite = Lite.Small(OpenLite(nameof(LiteDb_FindById)));
        _lite.InsertBulk(Records);
    }

    [GlobalSetup(Target = nameof(Sqlite_Select))]
    public void SetupSqlite()
    {
        SetupKeys();
        _sqlite = OpenSqlite(nameof(Sqlite_Select), SqliteSync.Normal);
        _sqlite.BulkInsert(Records);
    }

    [GlobalSetup(Target = nameof(ZoneTree_TryGet))]
    public void SetupZone()
    {
        SetupKeys();
        _zone = OpenZone(nameof(ZoneTree_TryGet));
        foreach (var record in Records)
        {
            _zone.Upsert(record.Id, record);
        }
    }

    [GlobalSetup(Target = nameof(Stellar_Get))]
    public void SetupStellar()
    {
        SetupKeys();
        _stellar = OpenStellar(nameof(Stellar_Get), Peers.Stellar.Options(Durability.WriteThrough));
        _stellar.BulkImportAsync(Records).GetAwaiter().GetResult();
    }

    [GlobalSetup(Target = nameof(Stellar_Get_CopyOnRead))]
    public void SetupStellarCopy()
    {
        SetupKeys();
        _stellarCopy = OpenStellar(nameof(Stellar_Get_CopyOnRead), Peers.Stellar.Options(Durability.WriteThrough, copyOnRead: true));
        _stellarCopy.BulkImportAsync(Records).GetAwaiter().GetResult();
    }

    [GlobalSetup(Target = nameof(ConcurrentDictionary_TryGetValue))]
    public void SetupDictionary()
    {
        SetupKeys();
        _dictionary = new ConcurrentDictionary<int, SmallRecord>(Records.Select(r => KeyValuePair.Create(r.Id, r)));
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        CloseMeasureAndDelete();
        DeleteRoot();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Reads)]
    public int LiteDb_FindById()
    {
        var found = 0;
        foreach (var key in _keys)
        {
            found += _lite.FindById(key) is null ? 0 : 1;
        }

        return found;
    }

    [Benchmark(OperationsPerInvoke = Reads)]
    public int Sqlite_Select()
    {
        var found = 0;
        foreach (var key in _keys)
        {
            found += _sqlite.Get(key) is null ? 0 : 1;
        }

        return found;
    }

    [Benchmark(OperationsPerInvoke = Reads)]
    public int ZoneTree_TryGet()
    {
        var found = 0;
        foreach (var key in _keys)
        {
            found += _zone.TryGet(key, out _) ? 1 : 0;
        }

        return found;
    }

    [Benchmark(OperationsPerInvoke = Reads)]
    public int Stellar_Get()
    {
        var found = 0;
        foreach (var key in _keys)
        {
            found += _stellar.TryGet(key, out _) ? 1 : 0;
        }

        return found;
    }

    [Benchmark(OperationsPerInvoke = Reads)]
    public int Stellar_Get_CopyOnRead()
    {
        var found = 0;
        foreach (var key in _keys)
        {
            found += _stellarCopy.TryGet(key, out _) ? 1 : 0;
        }

        return found;
    }

    [Benchmark(OperationsPerInvoke = Reads)]
    public int ConcurrentDictionary_TryGetValue()
    {
        var found = 0;
        foreach (var key in _keys)
        {
            found += _dictionary.TryGetValue(key, out _) ? 1 : 0;
        }

        return found;
    }

    private void SetupKeys()
    {
        var random = new Random(7);
        _keys = Enumerable.Range(0, Reads).Select(_ => random.Next(1, StoreRecords + 1)).ToArray();
    }
}
