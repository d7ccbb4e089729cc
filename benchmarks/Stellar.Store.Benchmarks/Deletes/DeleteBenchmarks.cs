using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;

namespace Stellar.Store.Benchmarks.Deletes;

/// <summary>
/// Workload 3: one caller deletes existing records one at a time, awaiting each, from a store filled (untimed) with
/// twice as many. ZoneTree is left out: deleting needs a tombstone convention for reference values.
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

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(Scale.Ops(Deletes) * 2).ToArray();
        _victims = _records.Where(r => r.Id % 2 == 0).Select(r => r.Id).ToArray();
    }

    [IterationSetup(Target = nameof(LiteDb))]
    public void SetupLite()
    {
        _lite = Lite.Small(OpenLite(nameof(LiteDb)));
        _lite.InsertBulk(_records);
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
    public void LiteDb()
    {
        foreach (var id in _victims)
        {
            _lite.Delete(id);
        }
    }

    [Benchmark(OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public Task Stellar_WriteThrough() => DeleteStellarAsync();

    [Benchmark(OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void Sqlite_Normal() => DeleteSqlite();

    [Benchmark(Baseline = true, OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void Sqlite_Full() => DeleteSqlite();

    [Benchmark(OperationsPerInvoke = Deletes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public Task Stellar_Fsync() => DeleteStellarAsync();

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

    private async Task DeleteStellarAsync()
    {
        foreach (var id in _victims)
        {
            await _stellar.DeleteAsync(id).ConfigureAwait(false);
        }
    }

    private void DeleteSqlite()
    {
        foreach (var id in _victims)
        {
            _sqlite.Delete(id);
        }
    }
}
