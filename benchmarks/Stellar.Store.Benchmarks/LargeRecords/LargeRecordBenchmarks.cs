using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using Stellar.Store.Engine;

namespace Stellar.Store.Benchmarks.LargeRecords;

/// <summary>
/// Workload 7: 64 callers insert records with about 2 KB of text into a fresh store: Stellar plain, LZ4, AES-GCM and
/// both (all WriteThrough), LiteDB plain and with its AES password encryption, SQLite NORMAL. The time is per
/// record; Disk KiB shows what compression saves. Baseline: Stellar plain, the rate issue 7's goal is relative to.
/// </summary>
[MemoryDiagnoser]
[WriteJob(3)]
[BenchmarkCategory("LargeRecords", Pairing.OsWrite)]
public class LargeRecordBenchmarks : StoreBenchmark
{
    private const int Writes = 2048;
    private const int Callers = 64;

    private LargeRecord[] _records = [];
    private Collection<int, LargeRecord> _stellar = null!;
    private ILiteCollection<LargeRecord> _lite = null!;
    private Sqlite _sqlite = null!;

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Enumerable.Range(1, Scale.Ops(Writes)).Select(i => Data.Large(i)).ToArray();
        var write = SingleWrite<int, LargeRecord>.Create(WriteKind.Insert, 1, _records[0], Collection<int, LargeRecord>.MaxKeyBytes, int.MaxValue);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.BytesPerOp, write.Length);
        write.Release();
    }

    [IterationSetup(Target = nameof(Stellar_Plain))]
    public void SetupPlain() => _stellar = OpenStellarLarge(nameof(Stellar_Plain), Peers.Stellar.Options(Durability.WriteThrough));

    [IterationSetup(Target = nameof(Stellar_Lz4))]
    public void SetupLz4() => _stellar = OpenStellarLarge(nameof(Stellar_Lz4), Peers.Stellar.Options(Durability.WriteThrough, lz4: true));

    [IterationSetup(Target = nameof(Stellar_AesGcm))]
    public void SetupAes() => _stellar = OpenStellarLarge(nameof(Stellar_AesGcm), Peers.Stellar.Options(Durability.WriteThrough, aes: true));

    [IterationSetup(Target = nameof(Stellar_Lz4_AesGcm))]
    public void SetupBoth() => _stellar = OpenStellarLarge(nameof(Stellar_Lz4_AesGcm), Peers.Stellar.Options(Durability.WriteThrough, lz4: true, aes: true));

    [IterationSetup(Target = nameof(LiteDb_Plain))]
    public void SetupLitePlain() => _lite = Lite.Large(OpenLite(nameof(LiteDb_Plain)));

    [IterationSetup(Target = nameof(LiteDb_Aes))]
    public void SetupLiteAes() => _lite = Lite.Large(OpenLite(nameof(LiteDb_Aes), password: "benchmark-password"));

    [IterationSetup(Target = nameof(Sqlite_Normal))]
    public void SetupSqlite() => _sqlite = OpenSqlite(nameof(Sqlite_Normal), SqliteSync.Normal);

    [IterationCleanup]
    public void IterationCleanup() => CloseMeasureAndDelete();

    [GlobalCleanup]
    public void GlobalCleanup() => DeleteRoot();

    [Benchmark(Baseline = true, OperationsPerInvoke = Writes)]
    public Task Stellar_Plain() => InsertStellarAsync();

    [Benchmark(OperationsPerInvoke = Writes)]
    public Task Stellar_Lz4() => InsertStellarAsync();

    [Benchmark(OperationsPerInvoke = Writes)]
    public Task Stellar_AesGcm() => InsertStellarAsync();

    [Benchmark(OperationsPerInvoke = Writes)]
    public Task Stellar_Lz4_AesGcm() => InsertStellarAsync();

    [Benchmark(OperationsPerInvoke = Writes)]
    public void LiteDb_Plain() => RunThreads(r => _lite.Insert(r));

    [Benchmark(OperationsPerInvoke = Writes)]
    public void LiteDb_Aes() => RunThreads(r => _lite.Insert(r));

    [Benchmark(OperationsPerInvoke = Writes)]
    public void Sqlite_Normal() => RunThreads(_sqlite.InsertLarge);

    private Task InsertStellarAsync()
    {
        var callers = new Task[Callers];
        for (var c = 0; c < Callers; c++)
        {
            var caller = c;
            callers[c] = Task.Run(async () =>
            {
                for (var i = caller; i < _records.Length; i += Callers)
                {
                    await _stellar.InsertAsync(_records[i]).ConfigureAwait(false);
                }
            });
        }

        return Task.WhenAll(callers);
    }

    private void RunThreads(Action<LargeRecord> write)
    {
        var threads = new Thread[Callers];
        for (var c = 0; c < Callers; c++)
        {
            var caller = c;
            threads[c] = new Thread(() =>
            {
                for (var i = caller; i < _records.Length; i += Callers)
                {
                    write(_records[i]);
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
