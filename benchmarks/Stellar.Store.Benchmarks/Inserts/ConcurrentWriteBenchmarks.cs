using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using ZoneTree;

namespace Stellar.Store.Benchmarks.Inserts;

/// <summary>
/// Workload 2: 8 or 64 callers write at once, each awaiting its own writes one at a time, into a fresh store (for
/// upserts, a store already holding every key). The time is per write across all callers (1 / throughput). Callers
/// of the synchronous peers run on their own threads, so a blocked caller does not starve the thread pool.
/// Upserts change every record (a new score and date): an upsert of identical values would let SQLite skip the
/// write altogether (it leaves a page clean when the new row equals the old), which is not the workload.
/// </summary>
[MemoryDiagnoser]
[WriteJob(3)]
[BenchmarkCategory("ConcurrentWrite")]
public class ConcurrentWriteBenchmarks : StoreBenchmark
{
    private const int Writes = 2048;

    private SmallRecord[] _records = [];
    private SmallRecord[] _writes = [];
    private Collection<int, SmallRecord> _stellar = null!;
    private ILiteCollection<SmallRecord> _lite = null!;
    private Sqlite _sqlite = null!;
    private IZoneTree<int, SmallRecord> _zone = null!;

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
            : _records.Select(r => new SmallRecord { Id = r.Id, Name = r.Name, Score = r.Score + 1, LastSeen = r.LastSeen.AddMinutes(1) }).ToArray();
    }

    [IterationSetup(Target = nameof(LiteDb))]
    public void SetupLite()
    {
        _lite = Lite.Small(OpenLite(nameof(LiteDb)));
        if (Op == WriteOp.Upsert)
        {
            _lite.InsertBulk(_records);
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

    [IterationSetup(Target = nameof(ZoneTree_WalSync))]
    public void SetupZone()
    {
        _zone = OpenZone(nameof(ZoneTree_WalSync));
        if (Op == WriteOp.Upsert)
        {
            foreach (var record in _records)
            {
                _zone.Upsert(record.Id, record);
            }
        }
    }

    [IterationCleanup]
    public void IterationCleanup() => CloseMeasureAndDelete();

    [GlobalCleanup]
    public void GlobalCleanup() => DeleteRoot();

    [Benchmark(Baseline = true, OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void LiteDb() => RunThreads(record =>
    {
        if (Op == WriteOp.Insert)
        {
            _lite.Insert(record);
        }
        else
        {
            _lite.Upsert(record);
        }
    });

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public Task Stellar_WriteThrough() => RunStellarAsync();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void Sqlite_Normal() => RunSqlite();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void ZoneTree_WalSync() => RunThreads(record => _zone.Upsert(record.Id, record));

    [Benchmark(Baseline = true, OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void Sqlite_Full() => RunSqlite();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public Task Stellar_Fsync() => RunStellarAsync();

    private void SetupStellar(string method, Durability durability)
    {
        _stellar = OpenStellar(method, Peers.Stellar.Options(durability));
        if (Op == WriteOp.Upsert)
        {
            _stellar.BulkImportAsync(_records).GetAwaiter().GetResult();
        }
    }

    private void SetupSqlite(string method, SqliteSync sync)
    {
        _sqlite = OpenSqlite(method, sync);
        if (Op == WriteOp.Upsert)
        {
            _sqlite.BulkInsert(_records);
        }
    }

    private void RunSqlite() => RunThreads(record =>
    {
        if (Op == WriteOp.Insert)
        {
            _sqlite.Insert(record);
        }
        else
        {
            _sqlite.Upsert(record);
        }
    });

    private Task RunStellarAsync()
    {
        var callers = new Task[Callers];
        for (var c = 0; c < Callers; c++)
        {
            var caller = c;
            callers[c] = Task.Run(async () =>
            {
                for (var i = caller; i < _writes.Length; i += Callers)
                {
                    if (Op == WriteOp.Insert)
                    {
                        await _stellar.InsertAsync(_writes[i]).ConfigureAwait(false);
                    }
                    else
                    {
                        await _stellar.UpsertAsync(_writes[i]).ConfigureAwait(false);
                    }
                }
            });
        }

        return Task.WhenAll(callers);
    }

    private void RunThreads(Action<SmallRecord> write)
    {
        var threads = new Thread[Callers];
        for (var c = 0; c < Callers; c++)
        {
            var caller = c;
            threads[c] = new Thread(() =>
            {
                for (var i = caller; i < _writes.Length; i += Callers)
                {
                    write(_writes[i]);
                }
            });
            threads[c].Start();
        }

        foreach (var thread in threads)
        {
            thread.Join();
        }
    }
}
