using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using ZoneTree;

namespace Stellar.Store.Benchmarks.Inserts;

/// <summary>
/// Workload 1: one caller inserts small records one at a time, awaiting each, into a fresh store. The time is per
/// insert (its latency, since there is one caller). Baselines: SQLite NORMAL among the writes that reach the OS
/// without fsync, SQLite FULL among those that fsync (LiteDB 5 fsyncs every commit, so it is there). Our Buffered
/// mode promises nothing per write, so its row times the inserts and the flush that makes them durable, and stands
/// alone. The plain-file rows write the same MessagePack bytes with a flush per record.
/// </summary>
[MemoryDiagnoser]
[WriteJob(5)]
[BenchmarkCategory("SingleInsert")]
public class SingleInsertBenchmarks : StoreBenchmark
{
    private const int Inserts = 500;

    private SmallRecord[] _records = [];
    private byte[][] _bytes = [];
    private Collection<int, SmallRecord> _stellar = null!;
    private StellarStore _stellarStore = null!;
    private ILiteCollection<SmallRecord> _lite = null!;
    private Sqlite _sqlite = null!;
    private IZoneTree<int, SmallRecord> _zone = null!;
    private FileStream _file = null!;

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(Scale.Ops(Inserts)).ToArray();
        _bytes = RecordBytes.Of(_records);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.RecordsStored, _records.Length);
    }

    [IterationSetup(Target = nameof(LiteDb_Fsync))]
    public void SetupLite() => _lite = Lite.Small(OpenLite(nameof(LiteDb_Fsync)));

    [IterationSetup(Target = nameof(Stellar_Buffered_FlushAtEnd))]
    public void SetupBuffered() =>
        _stellar = ReopenStellar(Fresh(nameof(Stellar_Buffered_FlushAtEnd)), Peers.Stellar.Options(Durability.Buffered), out _stellarStore);

    [IterationSetup(Target = nameof(Stellar_WriteThrough))]
    public void SetupWriteThrough() => _stellar = OpenStellar(nameof(Stellar_WriteThrough), Peers.Stellar.Options(Durability.WriteThrough));

    [IterationSetup(Target = nameof(Stellar_Fsync))]
    public void SetupFsync() => _stellar = OpenStellar(nameof(Stellar_Fsync), Peers.Stellar.Options(Durability.Fsync));

    [IterationSetup(Target = nameof(Sqlite_Normal))]
    public void SetupSqliteNormal() => _sqlite = OpenSqlite(nameof(Sqlite_Normal), SqliteSync.Normal);

    [IterationSetup(Target = nameof(Sqlite_Full))]
    public void SetupSqliteFull() => _sqlite = OpenSqlite(nameof(Sqlite_Full), SqliteSync.Full);

    [IterationSetup(Target = nameof(ZoneTree_WalSync))]
    public void SetupZone() => _zone = OpenZone(nameof(ZoneTree_WalSync));

    [IterationSetup(Target = nameof(FileStream_Write))]
    public void SetupFileWrite() => _file = OpenFile(nameof(FileStream_Write));

    [IterationSetup(Target = nameof(FileStream_Fsync))]
    public void SetupFileFsync() => _file = OpenFile(nameof(FileStream_Fsync));

    [IterationCleanup]
    public void IterationCleanup() => CloseMeasureAndDelete();

    [GlobalCleanup]
    public void GlobalCleanup() => DeleteRoot();

    [Benchmark(Baseline = true, OperationsPerInvoke = Inserts)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void Sqlite_Normal() => InsertSqlite();

    [Benchmark(OperationsPerInvoke = Inserts)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public Task Stellar_WriteThrough() => InsertStellarAsync();

    [Benchmark(OperationsPerInvoke = Inserts)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void ZoneTree_WalSync()
    {
        foreach (var record in _records)
        {
            _zone.Upsert(record.Id, record);
        }
    }

    [Benchmark(OperationsPerInvoke = Inserts)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void FileStream_Write()
    {
        foreach (var bytes in _bytes)
        {
            _file.Write(bytes);
            _file.Flush(flushToDisk: false);
        }
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Inserts)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void Sqlite_Full() => InsertSqlite();

    [Benchmark(OperationsPerInvoke = Inserts)]
    [BenchmarkCategory(Pairing.Fsync)]
    public Task Stellar_Fsync() => InsertStellarAsync();

    [Benchmark(OperationsPerInvoke = Inserts)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void LiteDb_Fsync()
    {
        foreach (var record in _records)
        {
            _lite.Insert(record);
        }
    }

    [Benchmark(OperationsPerInvoke = Inserts)]
    [BenchmarkCategory(Pairing.FlushAtEnd)]
    public async Task Stellar_Buffered_FlushAtEnd()
    {
        await InsertStellarAsync().ConfigureAwait(false);
        await _stellarStore.FlushAsync().ConfigureAwait(false);
    }

    [Benchmark(OperationsPerInvoke = Inserts)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void FileStream_Fsync()
    {
        foreach (var bytes in _bytes)
        {
            _file.Write(bytes);
            _file.Flush(flushToDisk: true);
        }
    }

    private async Task InsertStellarAsync()
    {
        foreach (var record in _records)
        {
            await _stellar.InsertAsync(record).ConfigureAwait(false);
        }
    }

    private void InsertSqlite()
    {
        foreach (var record in _records)
        {
            _sqlite.Insert(record);
        }
    }
}
