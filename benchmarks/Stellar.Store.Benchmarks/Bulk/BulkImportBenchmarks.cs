using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using Stellar.Store.Codecs;
using Stellar.Store.Engine;
using ZoneTree;

namespace Stellar.Store.Benchmarks.Bulk;

/// <summary>
/// Workload 6: bulk import of 100,000 and 1,000,000 small records into a fresh store, each peer through its bulk
/// API: LiteDB <c>InsertBulk</c>, SQLite one transaction with a prepared insert, ZoneTree upserts with its log off
/// then eviction to a disk segment (its advice for a load), Stellar <c>BulkImportAsync</c> (which fsyncs once at the
/// end in every mode, so both of our rows are in the fsync pairing). The plain-file ceiling writes the same record
/// bytes Stellar writes (its records, without block headers) sequentially, fsync at the end. Pairings by what is
/// promised when the import returns: fsync (SQLite FULL, LiteDB, ours, the ceiling), OS (SQLite NORMAL; ZoneTree,
/// whose segment write is not documented to fsync). The time is per import; Ops/s is records per second.
/// </summary>
[MemoryDiagnoser]
[WriteJob(3)]
[BenchmarkCategory("BulkImport")]
public class BulkImportBenchmarks : StoreBenchmark
{
    private SmallRecord[] _records = [];
    private byte[] _recordBytes = [];
    private ILiteCollection<SmallRecord> _lite = null!;
    private Sqlite _sqlite = null!;
    private IZoneTree<int, SmallRecord> _zone = null!;
    private Collection<int, SmallRecord> _stellar = null!;
    private FileStream _file = null!;

    /// <summary>Records per import (a few hundred in a dry run).</summary>
    [ParamsSource(nameof(Sizes))]
    public int Records { get; set; }

    public static IEnumerable<int> Sizes => [Scale.Records(100_000), Scale.Records(1_000_000)];

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(Records).ToArray();
        using var bytes = new MemoryStream();
        foreach (var record in _records)
        {
            var write = SingleWrite<int, SmallRecord>.Create(RecordSerializer.Default, WriteKind.Upsert, record.Id, record, Collection<int, SmallRecord>.MaxKeyBytes, int.MaxValue);
            bytes.Write(write.Record, 0, write.Length);
            write.Release();
        }

        _recordBytes = bytes.ToArray();
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.BytesPerOp, (double)_recordBytes.Length / Records);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.OpsPerOp, Records);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.RecordsStored, Records);
    }

    [IterationSetup(Target = nameof(LiteDb_Fsync_InsertBulk))]
    public void SetupLite() => _lite = Lite.Small(OpenLite(nameof(LiteDb_Fsync_InsertBulk)));

    [IterationSetup(Target = nameof(Sqlite_Normal_Transaction))]
    public void SetupSqliteNormal() => _sqlite = OpenSqlite(nameof(Sqlite_Normal_Transaction), SqliteSync.Normal);

    [IterationSetup(Target = nameof(Sqlite_Full_Transaction))]
    public void SetupSqliteFull() => _sqlite = OpenSqlite(nameof(Sqlite_Full_Transaction), SqliteSync.Full);

    [IterationSetup(Target = nameof(ZoneTree_NoWal_Evict))]
    public void SetupZone() => _zone = OpenZone(nameof(ZoneTree_NoWal_Evict), bulkLoad: true);

    [IterationSetup(Target = nameof(Stellar_BulkImport_WriteThroughStore))]
    public void SetupWriteThrough() => _stellar = OpenStellar(nameof(Stellar_BulkImport_WriteThroughStore), Peers.Stellar.Options(Durability.WriteThrough));

    [IterationSetup(Target = nameof(Stellar_BulkImport_FsyncStore))]
    public void SetupFsync() => _stellar = OpenStellar(nameof(Stellar_BulkImport_FsyncStore), Peers.Stellar.Options(Durability.Fsync));

    [IterationSetup(Target = nameof(FileStream_Ceiling))]
    public void SetupFile() => _file = OpenFile(nameof(FileStream_Ceiling));

    [IterationCleanup]
    public void IterationCleanup() => CloseMeasureAndDelete();

    [GlobalCleanup]
    public void GlobalCleanup() => DeleteRoot();

    [Benchmark(Baseline = true)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void Sqlite_Normal_Transaction() => _sqlite.BulkInsert(_records);

    [Benchmark]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void ZoneTree_NoWal_Evict()
    {
        foreach (var record in _records)
        {
            _zone.Upsert(record.Id, record);
        }

        Zone.EvictToDisk(_zone);
    }

    [Benchmark(Baseline = true)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void Sqlite_Full_Transaction() => _sqlite.BulkInsert(_records);

    [Benchmark]
    [BenchmarkCategory(Pairing.Fsync)]
    public int LiteDb_Fsync_InsertBulk() => _lite.InsertBulk(_records);

    [Benchmark]
    [BenchmarkCategory(Pairing.Fsync)]
    public Task Stellar_BulkImport_WriteThroughStore() => _stellar.BulkImportAsync(_records);

    [Benchmark]
    [BenchmarkCategory(Pairing.Fsync)]
    public Task Stellar_BulkImport_FsyncStore() => _stellar.BulkImportAsync(_records);

    [Benchmark]
    [BenchmarkCategory(Pairing.Fsync)]
    public void FileStream_Ceiling()
    {
        const int Chunk = 1 << 20;
        for (var offset = 0; offset < _recordBytes.Length; offset += Chunk)
        {
            _file.Write(_recordBytes, offset, Math.Min(Chunk, _recordBytes.Length - offset));
        }

        _file.Flush(flushToDisk: true);
    }
}
