using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using ZoneTree;

namespace Stellar.Store.Benchmarks.Inserts;

/// <summary>
/// Workload 2: 8 or 64 callers write at once, each awaiting its own writes one at a time, into a fresh store (for
/// upserts, a store already holding every key). The time is per write across all callers (1 / throughput). The
/// callers are made before the timed region (see <see cref="Callers"/>).
/// Two kinds of peer rows: the naive one (every caller commits its own write: one transaction, and for FULL and
/// LiteDB one fsync, per row) and the one a peer's expert would write for the same per-caller promise, a group
/// commit (<see cref="GroupCommit{T}"/>: one writer thread drains the queue, N rows per transaction, each caller
/// released after the commit that holds its row). Our own group commit is built in, so our rows are the same code
/// in both comparisons.
/// Upserts change every record (a new score and date): an upsert of identical values would let SQLite skip the
/// write altogether (it leaves a page clean when the new row equals the old), which is not the workload.
/// </summary>
[MemoryDiagnoser]
[WriteJob(3)]
[BenchmarkCategory("ConcurrentWrite")]
public class ConcurrentWriteBenchmarks : StoreBenchmark
{
    private const int Writes = 1024;

    private SmallRecord[] _records = [];
    private SmallRecord[] _writes = [];
    private Callers _callers = null!;

    [Params(8, 64)]
    public int Callers { get; set; }

    [Params(WriteOp.Insert, WriteOp.Upsert)]
    public WriteOp Op { get; set; }

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(Scale.Ops(Writes)).ToArray();
        _writes = Op == WriteOp.Insert
            ? _records
            : _records.Select(r => Data.Next(r)).ToArray();
    }

    [IterationSetup(Target = nameof(LiteDb_Fsync))]
    public void SetupLite()
    {
        var lite = OpenLiteFilled(nameof(LiteDb_Fsync));
        SetupThreads(record =>
        {
            if (Op == WriteOp.Insert)
            {
                lite.Insert(record);
            }
            else
            {
                lite.Upsert(record);
            }
        });
    }

    [IterationSetup(Target = nameof(LiteDb_Fsync_GroupCommit))]
    public void SetupLiteGroup()
    {
        var lite = OpenLiteFilled(nameof(LiteDb_Fsync_GroupCommit));
        SetupGroupThreads(batch => _ = Op == WriteOp.Insert ? lite.Insert(batch) : lite.Upsert(batch));
    }

    [IterationSetup(Target = nameof(Stellar_WriteThrough))]
    public void SetupWriteThrough() => SetupStellar(nameof(Stellar_WriteThrough), Durability.WriteThrough);

    [IterationSetup(Target = nameof(Stellar_Fsync))]
    public void SetupFsync() => SetupStellar(nameof(Stellar_Fsync), Durability.Fsync);

    [IterationSetup(Target = nameof(Sqlite_Normal))]
    public void SetupSqliteNormal() => SetupSqlite(nameof(Sqlite_Normal), SqliteSync.Normal, group: false);

    [IterationSetup(Target = nameof(Sqlite_Normal_GroupCommit))]
    public void SetupSqliteNormalGroup() => SetupSqlite(nameof(Sqlite_Normal_GroupCommit), SqliteSync.Normal, group: true);

    [IterationSetup(Target = nameof(Sqlite_Full))]
    public void SetupSqliteFull() => SetupSqlite(nameof(Sqlite_Full), SqliteSync.Full, group: false);

    [IterationSetup(Target = nameof(Sqlite_Full_GroupCommit))]
    public void SetupSqliteFullGroup() => SetupSqlite(nameof(Sqlite_Full_GroupCommit), SqliteSync.Full, group: true);

    [IterationSetup(Target = nameof(ZoneTree_WalSync))]
    public void SetupZone()
    {
        var zone = OpenZone(nameof(ZoneTree_WalSync));
        if (Op == WriteOp.Upsert)
        {
            foreach (var record in _records)
            {
                zone.Upsert(record.Id, record);
            }
        }

        SetupThreads(record => zone.Upsert(record.Id, record));
    }

    [IterationCleanup]
    public void IterationCleanup() => CloseMeasureAndDelete();

    [GlobalCleanup]
    public void GlobalCleanup() => DeleteRoot();

    [Benchmark(Baseline = true, OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void Sqlite_Normal() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void Sqlite_Normal_GroupCommit() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void ZoneTree_WalSync() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public Task Stellar_WriteThrough() => _callers.RunAsync();

    [Benchmark(Baseline = true, OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void Sqlite_Full() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void Sqlite_Full_GroupCommit() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void LiteDb_Fsync() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void LiteDb_Fsync_GroupCommit() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public Task Stellar_Fsync() => _callers.RunAsync();

    private ILiteCollection<SmallRecord> OpenLiteFilled(string method)
    {
        var lite = Lite.Small(OpenLite(method));
        if (Op == WriteOp.Upsert)
        {
            lite.InsertBulk(_records);
        }

        return lite;
    }

    private void SetupStellar(string method, Durability durability)
    {
        var stellar = OpenStellar(method, Peers.Stellar.Options(durability));
        if (Op == WriteOp.Upsert)
        {
            stellar.BulkImportAsync(_records).GetAwaiter().GetResult();
        }

        _callers = Infrastructure.Callers.Tasks(Callers, async caller =>
        {
            for (var i = caller; i < _writes.Length; i += Callers)
            {
                await (Op == WriteOp.Insert ? stellar.InsertAsync(_writes[i]) : stellar.UpsertAsync(_writes[i])).ConfigureAwait(false);
            }
        });
    }

    private void SetupSqlite(string method, SqliteSync sync, bool group)
    {
        var sqlite = OpenSqlite(method, sync);
        if (Op == WriteOp.Upsert)
        {
            sqlite.BulkInsert(_records);
        }

        if (group)
        {
            SetupGroupThreads(batch =>
            {
                if (Op == WriteOp.Insert)
                {
                    sqlite.InsertMany(batch);
                }
                else
                {
                    sqlite.UpsertMany(batch);
                }
            });
        }
        else
        {
            SetupThreads(record =>
            {
                if (Op == WriteOp.Insert)
                {
                    sqlite.Insert(record);
                }
                else
                {
                    sqlite.Upsert(record);
                }
            });
        }
    }

    private void SetupGroupThreads(Action<List<SmallRecord>> commit)
    {
        var group = new GroupCommit<SmallRecord>(commit);
        OnClose(group.Dispose);
        SetupThreads(group.Write);
    }

    private void SetupThreads(Action<SmallRecord> write) =>
        _callers = Infrastructure.Callers.Threads(Callers, caller =>
        {
            for (var i = caller; i < _writes.Length; i += Callers)
            {
                write(_writes[i]);
            }
        });
}
