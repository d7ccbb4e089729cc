using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using ZoneTree;

namespace Stellar.Store.Benchmarks.Deletes;

/// <summary>
/// Workload 3: one caller deletes existing records one at a time, awaiting each, from a store filled (untimed) with
/// twice as many. Every store reports whether the key existed (ZoneTree's <c>TryDelete</c>, with a null value as its
/// tombstone). Pairings as in the single inserts: SQLite NORMAL and FULL are the baselines, LiteDB fsyncs.
/// </summary>
[MemoryDiagnoser]
[WriteJob(5)]
[BenchmarkCategory("Delete")]
public class DeleteBenchmarks : StoreBenchmark
{
    private const int Deletes = 500;

    private SmallRecord[] _records = [];
    private int[] _victims = [];
    private Collection<int, SmallRecord> _stellar = null!;
    private ILiteCollection<SmallRecord> _lite = null!;
    private Sqlite _sqlite = null!;
    private IZoneTree<int, SmallRecord> _zone = null!;

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(Scale.Ops(Deletes) * 2).ToArray();
        _victims = _records.Where(r => r.Id % 2 == 0).Select(r => r.Id).ToArray();
    }

    [IterationSetup(Target = nameof(LiteDb_Fsync))]
    public void SetupLite()
    {
        _lite = Lite.Small(OpenLite(nameof(LiteDb_Fsync)));
        _lite.InsertBulk(_records);
    }

    [IterationSetup(Target = nameof(ZoneTree_WalSync))]
    public void SetupZone()
    {
        _zone = OpenZone(nameof(ZoneTree_WalSync));
        foreach (var record in _records)
        {
            _zone.Upsert(record.Id, record);
        }
    }

    [IterationSetup(Target = nameof(Stellar_WriteThrough))]
    public void SetupWriteThrough() => SetupStellar(nameof(Stellar_WriteThrough), Durability.WriteThrough);

    [IterationSetup(Target = nameof(Stellar_Fsync))]
    public void SetupFsync() => SetupStellar(nameof(Stellar_Fsync), Durability.Fsync);

    [IterationSetup(Target = nameof(Sqlite_Normal))]
    public void SetupSqliteNormal() => SetupSqlite(nameof(Sqlite_Normal), SqliteSync.Normal);

    [IterationSetup(Target = nameof(Sqlite_Full))]
    public void SetupSqliteFull() => SetupSqlite(nameof(Sqlite_Full), SqliteSync.Full);

    [IterationCleanup]
    public void IterationCleanup() => CloseMeasureAndDelete();

    [GlobalCleanup]
    public void GlobalCleanup() => DeleteRoot();

    [Benchmark(Baseline = true, OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public int Sqlite_Normal() => DeleteSqlite();

    [Benchmark(OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public int ZoneTree_WalSync()
    {
        var deleted = 0;
        foreach (var id in _victims)
        {
            deleted += _zone.TryDelete(id, out _) ? 1 : 0;
        }

        return deleted;
    }

    [Benchmark(OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public Task<int> Stellar_WriteThrough() => DeleteStellarAsync();

    [Benchmark(Baseline = true, OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public int Sqlite_Full() => DeleteSqlite();

    [Benchmark(OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public int LiteDb_Fsync()
    {
        var deleted = 0;
        foreach (var id in _victims)
        {
            deleted += _lite.Delete(id) ? 1 : 0;
        }

        return deleted;
    }

    [Benchmark(OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public Task<int> Stellar_Fsync() => DeleteStellarAsync();

    private void SetupStellar(string method, Durability durability)
    {
        _stellar = OpenStellar(method, Peers.Stellar.Options(durability));
        _stellar.BulkImportAsync(_records).GetAwaiter().GetResult();
    }

    private void SetupSqlite(string method, SqliteSync sync)
    {
        _sqlite = OpenSqlite(method, sync);
        _sqlite.BulkInsert(_records);
    }

    private async Task<int> DeleteStellarAsync()
    {
        var deleted = 0;
        foreach (var id in _victims)
        {
            deleted += await _stellar.DeleteAsync(id).ConfigureAwait(false) ? 1 : 0;
        }

        return deleted;
    }

    private int DeleteSqlite()
    {
        var deleted = 0;
        foreach (var id in _victims)
        {
            deleted += _sqlite.Delete(id) ? 1 : 0;
        }

        return deleted;
    }
}
