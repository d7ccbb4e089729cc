using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using Stellar.Store.Codecs;
using Stellar.Store.Engine;

namespace Stellar.Store.Benchmarks.LargeRecords;

/// <summary>
/// Workload 7: 64 callers insert records with about 2 KB of text into a fresh store (callers made before the timed
/// region). OS-write pairing: Stellar plain, LZ4, AES-GCM and both (WriteThrough), LiteDB with its AES password
/// (its encrypting stream's flush is not a disk flush), SQLite NORMAL (baseline). Fsync pairing: LiteDB without a
/// password (fsyncs every commit), SQLite FULL (baseline), Stellar plain in Fsync mode. The time is per record;
/// Disk KiB shows what compression saves. The LZ4 + AES-GCM goal is relative to our plain rate.
/// </summary>
[MemoryDiagnoser]
[WriteJob(3)]
[BenchmarkCategory("LargeRecords")]
public class LargeRecordBenchmarks : StoreBenchmark
{
    private const int Writes = 1024;
    private const int CallerCount = 64;

    private LargeRecord[] _records = [];
    private Callers _callers = null!;

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Enumerable.Range(1, Scale.Ops(Writes)).Select(i => Data.Large(i)).ToArray();
        var write = SingleWrite<int, LargeRecord>.Create(RecordSerializer.Default, WriteKind.Insert, 1, _records[0], Collection<int, LargeRecord>.MaxKeyBytes, int.MaxValue);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.BytesPerOp, write.Length);
        write.Release();
    }

    [IterationSetup(Target = nameof(Stellar_Plain))]
    public void SetupPlain() => SetupStellar(nameof(Stellar_Plain), Peers.Stellar.Options(Durability.WriteThrough));

    [IterationSetup(Target = nameof(Stellar_Lz4))]
    public void SetupLz4() => SetupStellar(nameof(Stellar_Lz4), Peers.Stellar.Options(Durability.WriteThrough, lz4: true));

    [IterationSetup(Target = nameof(Stellar_AesGcm))]
    public void SetupAes() => SetupStellar(nameof(Stellar_AesGcm), Peers.Stellar.Options(Durability.WriteThrough, aes: true));

    [IterationSetup(Target = nameof(Stellar_Lz4_AesGcm))]
    public void SetupBoth() => SetupStellar(nameof(Stellar_Lz4_AesGcm), Peers.Stellar.Options(Durability.WriteThrough, lz4: true, aes: true));

    [IterationSetup(Target = nameof(Stellar_Plain_Fsync))]
    public void SetupPlainFsync() => SetupStellar(nameof(Stellar_Plain_Fsync), Peers.Stellar.Options(Durability.Fsync));

    [IterationSetup(Target = nameof(LiteDb_Plain_Fsync))]
    public void SetupLitePlain() => SetupLite(Lite.Large(OpenLite(nameof(LiteDb_Plain_Fsync))));

    [IterationSetup(Target = nameof(LiteDb_Aes_OsWrite))]
    public void SetupLiteAes() => SetupLite(Lite.Large(OpenLite(nameof(LiteDb_Aes_OsWrite), password: "benchmark-password")));

    [IterationSetup(Target = nameof(Sqlite_Normal))]
    public void SetupSqliteNormal() => SetupThreads(OpenSqlite(nameof(Sqlite_Normal), SqliteSync.Normal).InsertLarge);

    [IterationSetup(Target = nameof(Sqlite_Full))]
    public void SetupSqliteFull() => SetupThreads(OpenSqlite(nameof(Sqlite_Full), SqliteSync.Full).InsertLarge);

    [IterationCleanup]
    public void IterationCleanup() => CloseMeasureAndDelete();

    [GlobalCleanup]
    public void GlobalCleanup() => DeleteRoot();

    [Benchmark(Baseline = true, OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void Sqlite_Normal() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public Task Stellar_Plain() => _callers.RunAsync();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public Task Stellar_Lz4() => _callers.RunAsync();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public Task Stellar_AesGcm() => _callers.RunAsync();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public Task Stellar_Lz4_AesGcm() => _callers.RunAsync();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void LiteDb_Aes_OsWrite() => _callers.Run();

    [Benchmark(Baseline = true, OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void Sqlite_Full() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void LiteDb_Plain_Fsync() => _callers.Run();

    [Benchmark(OperationsPerInvoke = Writes)]
    [BenchmarkCategory(Pairing.Fsync)]
    public Task Stellar_Plain_Fsync() => _callers.RunAsync();

    private void SetupStellar(string method, StoreOptions options)
    {
        var stellar = OpenStellarLarge(method, options);
        _callers = Callers.Tasks(CallerCount, async caller =>
        {
            for (var i = caller; i < _records.Length; i += CallerCount)
            {
                await stellar.InsertAsync(_records[i]).ConfigureAwait(false);
            }
        });
    }

    private void SetupLite(ILiteCollection<LargeRecord> lite) => SetupThreads(r => lite.Insert(r));

    private void SetupThreads(Action<LargeRecord> write) =>
        _callers = Callers.Threads(CallerCount, caller =>
        {
            for (var i = caller; i < _records.Length; i += CallerCount)
            {
                write(_records[i]);
            }
        });
}
